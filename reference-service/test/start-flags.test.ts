// The service's Node flags and allocator settings are part of what the benchmark measures: it starts its
// targets as `npm start` starts the service on the same backend (bench/support/target-process.ts).
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { SERVICE_MALLOC_ENV, targetCommand } from '../bench/support/target-process.js';

const { scripts } = (await import('../package.json', { with: { type: 'json' } })).default as {
  scripts: Record<string, string>;
};

/** The last command of `npm start`: its variable assignments and node's arguments before dist/main.js. */
function startCommand(): { assignments: string[]; flags: string } {
  const match = /(?:^|&& )((?:\S+=\S+ )*)node ([^&]*) dist\/main\.js$/.exec(scripts.start!);
  if (!match) throw new Error(`npm start does not end by running dist/main.js: ${scripts.start}`);
  return { assignments: match[1]!.trim().split(' ').filter(Boolean), flags: match[2]! };
}

/** The flags as the shell expands them in `env`. */
function expandedFlags(env: Record<string, string>): string {
  const script = `echo ${startCommand().flags}`;
  return execFileSync('sh', ['-c', script], { env: { PATH: process.env.PATH, ...env } })
    .toString()
    .trim();
}

const URLS = ['postgres://svc@127.0.0.1:5432/svc?x=*', 'postgres://u:p$w@h/db?a=1&b=2 c'];

it('starts the benchmark targets with the flags npm start gives the service, on either backend', () => {
  for (const env of [{}, { DATABASE_URL: '' }, ...URLS.map((url) => ({ DATABASE_URL: url }))]) {
    expect(expandedFlags(env)).toBe(targetCommand(env).flags.join(' '));
  }
  expect(expandedFlags({})).toBe('--single-threaded-gc');
  expect(expandedFlags({ DATABASE_URL: URLS[1]! })).toBe('--no-single-threaded-gc');
});

it('gives the benchmark targets the allocator settings npm start defaults to, and lets the caller override them', () => {
  // Every assignment is a default the caller may override: `NAME=${NAME:-value}`.
  const defaults = Object.fromEntries(
    startCommand().assignments.map((assignment) => {
      const match = /^(\w+)=\$\{(\w+):-([^}]+)\}$/.exec(assignment);
      expect(match?.[2], assignment).toBe(match?.[1]);
      return [match![1]!, match![3]!];
    }),
  );
  expect(defaults).toEqual(SERVICE_MALLOC_ENV);
  const { env } = targetCommand({});
  for (const [name, value] of Object.entries(SERVICE_MALLOC_ENV))
    expect(env[name]).toBe(process.env[name] ?? value);
  expect(targetCommand({ MALLOC_ARENA_MAX: '1' }).env.MALLOC_ARENA_MAX).toBe('1');
});
