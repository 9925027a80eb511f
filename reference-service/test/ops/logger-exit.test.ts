import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildEntryPoint } from '../support/service-process.js';

let script: Awaited<ReturnType<typeof buildEntryPoint>>;
beforeAll(async () => {
  script = await buildEntryPoint(fileURLToPath(new URL('./fixtures/log-then-exit.ts', import.meta.url)));
}, 60_000);
afterAll(() => script?.remove());

it('writes the lines still gathered in its buffer when the process exits at once', async () => {
  const child = spawn(process.execPath, [script.main], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code).toBe(1);
  const lines = output.trim().split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'the last words before exit', code: 'planted' });
});
