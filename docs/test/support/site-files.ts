import { readdirSync } from 'node:fs';
import path from 'node:path';

/** URL path of every built HTML page (`/guide/quickstart.html`, `/` for the home page). */
export function builtPages(distDir: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.html'))
        pages.push(toUrlPath(`/${path.relative(distDir, full).split(path.sep).join('/')}`));
    }
  };
  walk(distDir);
  return pages.sort();
}

/** One spelling per page: `/x/` and `/x/index.html` are the same page. */
export function toUrlPath(pathname: string): string {
  return pathname.endsWith('/index.html') ? pathname.slice(0, -'index.html'.length) : pathname;
}
