import { readFileSync } from 'node:fs';
import path from 'node:path';
import { distDir } from './paths';

/** The HTML of a built page, by its site path (`/guide/events.html`). */
export function builtHtml(sitePath: string): string {
  return readFileSync(path.join(distDir, sitePath), 'utf8');
}

/** The text of every h2–h4 heading of a built page, without the anchor VitePress appends. */
export function headings(html: string): string[] {
  return [...html.matchAll(/<h([234])[^>]*>([\s\S]*?)<\/h\1>/g)].map((match) =>
    (match[2] ?? '')
      .replace(/<a class="header-anchor"[\s\S]*?<\/a>/g, '')
      .replace(/<[^>]+>/g, '')
      .replace(/&ZeroWidthSpace;|\u200b/g, '')
      .trim(),
  );
}

/** Element ids of a built page. */
export function ids(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1] ?? ''));
}
