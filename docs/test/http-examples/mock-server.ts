import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse } from 'msw';
import type { exampleSandbox } from './fixture';

/**
 * Serves the mock's msw handlers over real HTTP on 127.0.0.1, so that the examples' curl commands and the
 * client run unchanged against the sandbox.
 */
export async function serveSandbox(
  sandbox: ReturnType<typeof exampleSandbox>,
): Promise<{ url: string; close: () => Promise<void> }> {
  let port = 0;
  const server: Server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    // This front stands at the sandbox's address, as a proxy would: an Origin naming this front is the
    // sandbox's own origin (what a browser on the portal sends).
    if (headers.get('origin') === `http://127.0.0.1:${port}`)
      headers.set('origin', new URL(sandbox.baseUrl).origin);
    // The handlers answer on the sandbox's base URL; the host the request came in on does not matter.
    const request = new Request(new URL(incoming.url ?? '/', sandbox.baseUrl), {
      method: incoming.method ?? 'GET',
      headers,
      ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
    });
    const response = await getResponse([...sandbox.handlers], request);
    if (!response) {
      outgoing.writeHead(404).end();
      return;
    }
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  ({ port } = server.address() as AddressInfo);
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
