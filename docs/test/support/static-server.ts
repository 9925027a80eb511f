import { createReadStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CONTENT_TYPES, fileFor } from '../../scripts/static-files.mjs';

export { fileFor };

export interface StaticSite {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves a built site read-only from 127.0.0.1 on a free port: what `vitepress preview` or any CDN does. */
export async function serveStatic(root: string): Promise<StaticSite> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const file = fileFor(root, url.pathname);
    if (!file || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(file ? 405 : 404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, {
      'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
      // As a CDN serves a VitePress build: the hashed files under /assets/ never change, the pages may.
      // Without it the browser fetched, parsed and compiled the same theme chunks, styles and fonts
      // again on each of the 320 pages the crawl loads.
      'cache-control': url.pathname.startsWith('/assets/')
        ? 'public, max-age=31536000, immutable'
        : 'no-cache',
    });
    if (request.method === 'HEAD') response.end();
    else createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
