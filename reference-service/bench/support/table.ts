/** One line of a result table: what, its value, the target, PASS / MISS (or empty cells). */
export type Row = readonly string[];

export const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

/** Prints a Markdown table, columns padded to their widest cell. */
export function printTable(title: string, header: Row, rows: readonly Row[]): void {
  const all = [header, ...rows];
  const width = header.map((_, c) => Math.max(...all.map((row) => (row[c] ?? '').length), 4));
  const line = (cells: Row) => `| ${width.map((w, c) => (cells[c] ?? '').padEnd(w)).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(`|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

/** `--name value` from the command line, or `fallback`. */
export function flag(name: string, fallback: string): string {
  const args = process.argv.slice(2);
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args[index + 1] !== undefined ? args[index + 1]! : fallback;
}
