// The matrix's slow, self-contained work, started by the test project's global set-up as soon as the test
// run begins (test/prepare.ts): the README's code written to apps/readme/ and the Next.js app, the
// Next.js production build, and the install of Node 18, 22 and 24. It then runs beside the other test files,
// at a lower priority, instead of holding up the matrix's own file, which vitest queues late (projects in
// name order, then the largest files first).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { APPS, EXIT_OK, startProcess } from './processes.mjs';
import { README_DIR, writeReadmeModules } from './readme-text.mjs';
import { installNodeVersions } from './runtimes.mjs';

export const NEXT_APP = join(APPS, 'next');
// Through require: the global set-up runs in vite's module runner, which has no import.meta.resolve.
export const NEXT_BIN = createRequire(import.meta.url).resolve('next/dist/bin/next');

/** The README's Next.js quickstart as app/webhooks/route.js, and with the edge runtime chosen below edge/. */
async function writeNextQuickstart() {
  const route = await readFile(join(README_DIR, 'examples', 'next-app-router.js'), 'utf8');
  const app = join(NEXT_APP, 'app');
  await mkdir(join(app, 'webhooks'), { recursive: true });
  await mkdir(join(app, 'edge', 'webhooks'), { recursive: true });
  await writeFile(join(app, 'webhooks', 'route.js'), route);
  // What a user adds to run the same route on the edge.
  await writeFile(join(app, 'edge', 'webhooks', 'route.js'), `${route}\nexport const runtime = 'edge';\n`);
}

/**
 * Starts the preparation, with `background` at a lower priority than this process; `{ done, stop }`: `done` resolves to each part's outcome, `{ seconds }` or
 * `{ error }` (a part that failed fails only the cells that need it), and rejects only if the README's
 * code cannot be written; `stop` ends a build still running.
 */
export function prepare({ background = true } = {}) {
  let build;
  const part = async (work) => {
    const since = performance.now();
    try {
      await work();
      return { seconds: Math.round((performance.now() - since) / 100) / 10 };
    } catch (error) {
      return { error: String(error?.message ?? error) };
    }
  };
  const done = (async () => {
    writeReadmeModules();
    await writeNextQuickstart();
    const [nextBuild, nodeInstall] = await Promise.all([
      // The build loads the route modules, which construct the README's Webhooks: the secret is set.
      part(() => {
        build = startProcess(process.execPath, [NEXT_BIN, 'build'], {
          cwd: NEXT_APP,
          timeoutMs: 600_000,
          background,
          ready: EXIT_OK,
        });
        return build.started;
      }),
      // A failed install is tried again by the Node 18, 22 and 24 cells themselves (runtimes.node).
      part(() => installNodeVersions({ background })),
    ]);
    return { 'next build': nextBuild, 'Node 18, 22 and 24 install': nodeInstall };
  })();
  return { done, stop: () => build?.stop() };
}
