import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A code block of a guide page: an included snippet file, or a fenced block written in the page. */
export interface Block {
  /** The `## ` heading the block sits under. */
  section: string;
  /** The tab title (`[JavaScript]`), else the file name, else the fence's language. */
  title: string;
  text: string;
  /** The file an include points at (for fenced blocks, none). */
  source: string;
}

const INCLUDE = /^<<< @\/(\S+?)(?:\{[^}]*\})?(?: \[(.+)\])?\s*$/;
const FENCE = /^```(\S*)(?: \[(.+)\])?\s*$/;

/**
 * Reads the blocks out of a page as VitePress renders them: `<<< @/path [title]` includes resolved from
 * docs/, fenced blocks as written. The quickstart test runs what this returns, so it runs the page.
 */
export function quickstartBlocks(file: string): Block[] {
  const docsDir = path.resolve(path.dirname(file), '..');
  const blocks: Block[] = [];
  let section = '';
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('## ')) section = line.slice(3);
    const include = INCLUDE.exec(line);
    if (include) {
      const source = path.join(docsDir, include[1] ?? '');
      blocks.push({
        section,
        title: include[2] ?? path.basename(source),
        text: readFileSync(source, 'utf8'),
        source,
      });
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence && line !== '```') {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
      blocks.push({ section, title: fence[2] ?? fence[1] ?? '', text: `${body.join('\n')}\n`, source: '' });
    }
  }
  return blocks;
}
