// Edge bundle budgets, measured as the issue did: esbuild --bundle --minify --platform=browser, then gzip.
// The figures are printed on every run; `npm run bench` prints them beside standardwebhooks'.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CASES, kb, measure } from '../src/bundle-size.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));

describe('edge bundle sizes (gzip)', () => {
  it.each(CASES)('$name', async (bundleCase) => {
    const size = await measure(bundleCase, here);
    console.log(
      `${size.name}: ${kb(size.minified)} minified, ${kb(size.gzipped)} gzip (budget ${kb(size.limitBytes ?? 0)})`,
    );
    expect(size.gzipped).toBeGreaterThan(0);
    expect(size.gzipped).toBeLessThanOrEqual(size.limitBytes ?? 0);
  });

  it('a signature-only bundle carries no zod and no event schema', async () => {
    const { build } = await import('esbuild');
    const result = await build({
      stdin: {
        contents:
          "export { verifySignatureAsync, signAsync, parseSignatureHeader } from '@svc-kit/webhooks';",
        resolveDir: here,
      },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    // The modules that contributed bytes to the output (esbuild parses more than it keeps).
    const [output] = Object.values(result.metafile.outputs);
    const inputs = Object.entries(output?.inputs ?? {})
      .filter(([, contribution]) => contribution.bytesInOutput > 0)
      .map(([input]) => input);
    expect(inputs.some((input) => input.includes('packages/webhooks/dist/index.web.js'))).toBe(true);
    expect(inputs.filter((input) => input.includes('node_modules/zod'))).toEqual([]);
    expect(result.outputFiles[0]?.text).not.toContain('evt_');
  });
});
