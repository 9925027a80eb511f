// The service's Node flags are part of what the benchmark measures: it starts its targets with the flags
// `npm start` gives the service on the same backend (bench/support/target-process.ts).
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { SERVICE_MALLOC_ENV, serviceNodeFlags } from '../bench/support/target-process.js';

const { scripts } = (await import('../package.json', { with: { type: 'json' } })).default as {
  scripts: Record<string, string>;
};

/** The arguments `npm start` passes to node before dist/main.js, as the shell expands them in `env`. */
function startFlags(env: Record<string, string>): string {
  const flags = /(?:^|&& )(?:\S+=\S+ )*node ([^&]*) dist\/main\.js$/.exec(scripts.start!)?.[1];
  if (flags === undefined)
    throw new Error(`npm start does not end by running dist/main.js: ${scripts.start}`);
  return execFileSync('sh', ['-c', `echo ${flags}`], { env: { PATH: process.env.PATH, ...env } })
    .toString()
    .trim();
}

it('starts the benchmark targets with the flags npm start gives the service, on either backend', () => {
  for (const env of [{}, { DATABASE_URL: '' }, { DATABASE_URL: 'postgres://svc@127.0.0.1:5432/svc?x=*' }]) {
    expect(startFlags(env)).toBe(serviceNodeFlags(env).join(' '));
  }
  expect(startFlags({})).toBe('--single-threaded-gc');
  expect(startFlags({ DATABASE_URL: 'postgres://127.0.0.1/svc' })).toBe('--no-single-threaded-gc');
});

it('gives the benchmark targets the allocator settings npm start defaults to', () => {
  const assignments = /&& ((?:\S+=\S+ )*)node [^&]* dist\/main\.js$/.exec(scripts.start!)?.[1] ?? '';
  const defaults = Object.fromEntries(
    [...assignments.matchAll(/(\w+)=\$\{(\w+):-(\w+)\}/g)].map(([, name, same, value]) => {
      expect(same).toBe(name);
      return [name, value];
    }),
  );
  expect(defaults).toEqual(SERVICE_MALLOC_ENV);
});
