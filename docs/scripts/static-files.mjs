import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** @type {Readonly<Record<string, string>>} The types a VitePress build holds. */
export const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
};

/**
 * The file a URL path names inside `root`, the way a plain static host resolves it; undefined if none.
 * @param {string} root
 * @param {string} urlPath
 * @returns {string | undefined}
 */
export function fileFor(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  const candidate = path.resolve(root, `.${decoded}`);
  if (candidate !== path.resolve(root) && !candidate.startsWith(path.resolve(root) + path.sep))
    return undefined;
  for (const file of [candidate, path.join(candidate, 'index.html')]) {
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}
