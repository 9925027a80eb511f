// README blocks marked `<!-- example: examples/… -->` are the files themselves, which the typecheck covers
// and the reference service's tests run (the session recipe against the real service).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/<!-- example: (examples\/[\w.-]+) -->\n```ts\n([\s\S]*?)```/g)];

describe('README examples', () => {
  it('shows the session recipe', () => {
    expect(blocks.map((block) => block[1])).toEqual(['examples/node-session.ts']);
  });

  it.each(blocks.map((block) => [block[1], block[2]] as const))(
    '%s is shown exactly as in the file',
    (file, shown) => {
      expect(shown).toBe(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));
    },
  );
});
