#!/usr/bin/env node
// `prepack` of every published package: refuses to pack an incomplete package (a build still running or
// failed, a missing declaration file, LICENSE or metadata, a README link that breaks on the registry).
// npm then stops and no tarball is written.
import { checkPackage, repositoryLicense } from './src/manifest.mjs';

const packageDir = process.argv[2] ?? process.cwd();
const { problems } = checkPackage(packageDir, { licenseText: repositoryLicense(packageDir) });
if (problems.length > 0) {
  process.stderr.write(
    `prepack: refusing to pack ${packageDir}:\n${problems.map((problem) => `  - ${problem}\n`).join('')}` +
      'Run the package build to completion (npm run build -w <package>) and pack again.\n',
  );
  process.exit(1);
}
