// The README's quickstarts are the example files, byte for byte: the examples are typechecked and run
// (examples.test.ts), so what the README shows is known to compile and work.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const examplesDir = new URL('../../examples/', import.meta.url);
const exampleFiles = readdirSync(examplesDir).filter((name) => name.endsWith('.ts'));

/** Code blocks of the `## Quickstarts` section, keyed by the example file their marker names. */
function quickstarts(): Map<string, string> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n## Quickstarts\n');
  if (start === -1) throw new Error('README.md has no "## Quickstarts" section.');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return new Map(
    [...section.matchAll(/<!-- example: (examples\/[\w.-]+) -->\n```ts\n([\s\S]*?)```\n/g)].map((match) => [
      match[1]!,
      match[2]!,
    ]),
  );
}

describe('README quickstarts', () => {
  it('show every example, each once', () => {
    expect(exampleFiles.length).toBeGreaterThanOrEqual(4);
    expect([...quickstarts().keys()].sort()).toEqual(exampleFiles.map((name) => `examples/${name}`).sort());
  });

  it.each(exampleFiles)('show examples/%s exactly', (name) => {
    expect(quickstarts().get(`examples/${name}`)).toBe(readFileSync(new URL(name, examplesDir), 'utf8'));
  });
});
