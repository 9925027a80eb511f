// Serves the built site (docs/.vitepress/dist) as a static host would, on loopback unless told otherwise:
// `npm run docs:preview -- --port 5000 --host 0.0.0.0`. `vitepress preview` takes no host and listens on
// every interface, which a preview of a local build has no reason to do.
import { createReadStream } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CONTENT_TYPES, fileFor } from './static-files.mjs';

const root = fileURLToPath(new URL('../.vitepress/dist/', import.meta.url));
const { values } = parseArgs({
  options: { port: { type: 'string', default: '4173' }, host: { type: 'string', default: '127.0.0.1' } },
});
const port = Number(values.port);
if (!/^\d+$/.test(values.port) || port > 65535) {
  console.error(`--port must be 0 to 65535, not ${values.port}`);
  process.exit(2);
}
if (fileFor(root, '/index.html') === undefined) {
  console.error(
    `no built site in ${root}: run npm run build first (it builds the packages the site documents, then the site)`,
  );
  process.exit(1);
}
const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://preview');
  const file = fileFor(root, url.pathname) ?? fileFor(root, `${url.pathname}.html`);
  if (!file || (request.method !== 'GET' && request.method !== 'HEAD')) {
    const notFound = fileFor(root, '/404.html');
    response.writeHead(file ? 405 : 404, { 'content-type': CONTENT_TYPES['.html'] });
    if (notFound && request.method === 'GET') createReadStream(notFound).pipe(response);
    else response.end();
    return;
  }
  response.writeHead(200, {
    'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
  });
  if (request.method === 'HEAD') response.end();
  else createReadStream(file).pipe(response);
});
server.on('error', (error) => {
  console.error(`cannot serve the site on ${values.host}:${port}: ${error.message}`);
  process.exit(1);
});
server.listen(port, values.host, () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  console.log(`Built site served at http://${shown}:${address.port}/ (Ctrl-C stops it)`);
});
