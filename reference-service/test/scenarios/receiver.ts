import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';

/** A request a receiver got: its path, headers and raw body. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An app's webhook receiver on loopback, as an integrator's test starts one. */
export interface Receiver {
  /** `http://127.0.0.1:<port>`; endpoints use paths under it. */
  origin: string;
  received: Received[];
  /** What it answers from now on. Default 200 `ok`. */
  answer(status: number, body: string): void;
  close(): Promise<void>;
}

/** Starts a receiver that records every request and answers as told. Every target dials it the same way. */
export async function startReceiver(): Promise<Receiver> {
  let status = 200;
  let text = 'ok';
  const received: Received[] = [];
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    answer(nextStatus, nextBody) {
      status = nextStatus;
      text = nextBody;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Listens on loopback; `onConnection` decides what a connection gets. */
async function listenOnLoopback(onConnection: (socket: Socket) => void): Promise<Server> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const portOf = (server: Server): number => (server.address() as { port: number }).port;

/**
 * Receiver addresses that never answer: `refused` refuses the connection (a port that was just free),
 * `silent` accepts it and says nothing. `close` ends both.
 */
export async function startUnansweredReceivers(): Promise<{
  refused: string;
  silent: string;
  close(): Promise<void>;
}> {
  const gone = await listenOnLoopback((socket) => socket.destroy());
  const refusedPort = portOf(gone);
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const held = new Set<Socket>();
  const silent = await listenOnLoopback((socket) => {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  });
  return {
    refused: `http://127.0.0.1:${refusedPort}/hooks`,
    silent: `http://127.0.0.1:${portOf(silent)}/hooks`,
    async close() {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    },
  };
}
