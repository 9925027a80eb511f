// The TypeScript blocks of a README that a reader can paste into a project: those importing one of our
// packages, whose other imports are installed in the test project (or are Node built-ins).
import { readFileSync } from 'node:fs';

const BLOCK = /```ts\n([\s\S]*?)```/g;
const IMPORT_FROM = /^import\s[\s\S]*?\sfrom\s+['"]([^'"]+)['"];?\s*$/gm;

/**
 * @param {string} readmePath
 * @param {readonly string[]} installed bare module names available to the snippets
 * @returns {{ index: number, code: string }[]}
 */
export function readmeSnippets(readmePath, installed) {
  const text = readFileSync(readmePath, 'utf8');
  return [...text.matchAll(BLOCK)].flatMap((match, index) => {
    const code = /** @type {string} */ (match[1]);
    const sources = [...code.matchAll(IMPORT_FROM)].map((found) => /** @type {string} */ (found[1]));
    const ours = sources.some((source) => source.startsWith('@svc-kit/'));
    // Node's built-in modules are typed by @types/node, which every test project has.
    const available = sources.every(
      (source) =>
        source.startsWith('node:') ||
        installed.some((name) => source === name || source.startsWith(`${name}/`)),
    );
    return ours && available ? [{ index, code }] : [];
  });
}

/**
 * The same snippet as a CommonJS module can hold it: imports first, the rest inside an async function
 * (CommonJS has no top-level await), `export` dropped.
 * @param {string} code
 */
export function asCommonJsModule(code) {
  const imports = [];
  const body = [];
  let inImport = false;
  for (const line of code.split('\n')) {
    if (line.startsWith('import ') || inImport) {
      imports.push(line);
      inImport = !/;\s*$/.test(line);
      continue;
    }
    body.push(
      line
        .replace(/^export default (.*);$/, 'void $1;')
        .replace(/^export (const|let|async function|function|class) /, '$1 '),
    );
  }
  return `${imports.join('\n')}\n\nexport async function snippet(): Promise<void> {\n${body.join('\n')}\n}\n`;
}
