// What an edge or browser bundle pays for an import: esbuild `--bundle --minify --platform=browser`, as
// the issue measured it, then gzip (zlib's default level, as most size tools report).
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** @typedef {{ name: string, code: string, limitBytes?: number }} BundleCase */
/** @typedef {BundleCase & { minified: number, gzipped: number }} BundleSize */

/** The imports the targets are about, with their gzip budgets. */
export const CASES = /** @type {BundleCase[]} */ ([
  {
    name: 'webhooks: verifySignatureAsync, signAsync, parseSignatureHeader',
    code: "export { verifySignatureAsync, signAsync, parseSignatureHeader } from '@svc-kit/webhooks';",
    limitBytes: 6 * 1024,
  },
  {
    name: 'webhooks: verifySignatureAsync',
    code: "export { verifySignatureAsync } from '@svc-kit/webhooks';",
    limitBytes: 6 * 1024,
  },
  {
    name: 'webhooks: verifySignature (synchronous, pure-JS SHA-256)',
    code: "export { verifySignature } from '@svc-kit/webhooks';",
    limitBytes: 8 * 1024,
  },
  {
    name: 'webhooks: verify (synchronous, typed events)',
    code: "export { verify } from '@svc-kit/webhooks';",
    limitBytes: 25 * 1024,
  },
  {
    name: 'webhooks: verifyAsync (typed events)',
    code: "export { verifyAsync } from '@svc-kit/webhooks';",
    limitBytes: 25 * 1024,
  },
  {
    name: 'webhooks: Webhooks (typed events)',
    code: "export { Webhooks } from '@svc-kit/webhooks';",
    limitBytes: 25 * 1024,
  },
  {
    name: 'webhooks/fetch: createFetchHandler + Webhooks',
    code: "export { Webhooks } from '@svc-kit/webhooks'; export { createFetchHandler } from '@svc-kit/webhooks/fetch';",
    limitBytes: 25 * 1024,
  },
  { name: 'client: Client', code: "export { Client } from '@svc-kit/client';", limitBytes: 30 * 1024 },
]);

/** The same measure for the comparison in the bench (no budget). */
export const REFERENCE_CASES = /** @type {BundleCase[]} */ ([
  { name: 'standardwebhooks: Webhook', code: "export { Webhook } from 'standardwebhooks';" },
]);

/**
 * @param {BundleCase} bundleCase
 * @param {string} resolveDir where the imports are resolved from
 * @returns {Promise<BundleSize>}
 */
export async function measure(bundleCase, resolveDir) {
  const result = await build({
    stdin: { contents: bundleCase.code, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${bundleCase.name}`);
  return { ...bundleCase, minified: output.contents.length, gzipped: gzipSync(output.contents).length };
}

/** @param {number} bytes */
export const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
