import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const MAX_LINES = 250;

/** Files allowed over MAX_LINES, each with its reason. Aim: none. */
const LONG_FILES: Readonly<Record<string, string>> = {};

/** Import edges the cycle check ignores, each with its reason. Aim: none. */
const IGNORED_EDGES: ReadonlySet<string> = new Set<string>();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) ? [path] : [];
  });
}

/**
 * The unit of layering a file belongs to: its top folder of src/ (a feature counts as a folder of its own,
 * `features/contacts`), or the file itself for the composition files at the root (app.ts, config.ts…).
 */
function unitOf(file: string): string {
  const parts = relative(SRC, file).split(/[\\/]/);
  if (parts.length === 1) return parts[0] as string;
  if (parts[0] === 'features') return `features/${parts[1]}`;
  return parts[0] as string;
}

function importEdges(): { from: string; to: string; file: string }[] {
  const edges: { from: string; to: string; file: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const target = resolve(dirname(file), match[1] as string).replace(/\.js$/, '.ts');
      const rel = relative(SRC, file);
      if (IGNORED_EDGES.has(`${rel} -> ${relative(SRC, target)}`)) continue;
      const from = unitOf(file);
      const to = unitOf(target);
      if (from !== to) edges.push({ from, to, file: rel });
    }
  }
  return edges;
}

/** The strongly connected groups of more than one unit (Tarjan): each one is an import cycle. */
function cycles(edges: { from: string; to: string }[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)?.add(to);
  }
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (unit: string) => {
    order.set(unit, order.size);
    low.set(unit, order.get(unit) as number);
    stack.push(unit);
    onStack.add(unit);
    for (const other of next.get(unit) ?? []) {
      if (!order.has(other)) {
        visit(other);
        low.set(unit, Math.min(low.get(unit) as number, low.get(other) as number));
      } else if (onStack.has(other)) {
        low.set(unit, Math.min(low.get(unit) as number, order.get(other) as number));
      }
    }
    if (low.get(unit) !== order.get(unit)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== unit);
    if (group.length > 1) found.push(group.sort());
  };
  for (const unit of next.keys()) if (!order.has(unit)) visit(unit);
  return found;
}

describe('the service’s layout', () => {
  it('has no import cycle between folders of src/', () => {
    const edges = importEdges();
    const explained = cycles(edges).map((group) => ({
      cycle: group,
      edges: edges
        .filter((edge) => group.includes(edge.from) && group.includes(edge.to))
        .map((edge) => `${edge.file} -> ${edge.to}`),
    }));
    expect(explained).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself can fail)', () => {
    const found = cycles([
      { from: 'store', to: 'domain' },
      { from: 'domain', to: 'store' },
      { from: 'http', to: 'store' },
    ]);
    expect(found).toEqual([['domain', 'store']]);
  });

  it(`keeps every file of src/ within ${MAX_LINES} lines, but the listed exceptions`, () => {
    const long = sourceFiles(SRC)
      .map((file) => ({
        file: relative(SRC, file),
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter(({ file, lines }) => lines > MAX_LINES && !(file in LONG_FILES));
    expect(long).toEqual([]);
  });
});
