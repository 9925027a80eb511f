import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';

/**
 * A raw TCP receiver: each test writes the bytes of the answer itself, so that slow, broken, oversized and
 * redirecting answers are exactly what they claim to be. It records every connection and when it closed.
 */
export async function rawReceiver(answer: (socket: Socket) => void) {
  const sockets: Socket[] = [];
  const closed: Socket[] = [];
  let received = '';
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('close', () => closed.push(socket));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    // Answer once the request's head has arrived, as a real server would.
    socket.once('data', () => answer(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    connections: () => sockets.length,
    /** Every byte received, all connections together. */
    received: () => received,
    /** Resolves once the first connection has been closed (by either side). */
    async firstClosed(): Promise<void> {
      while (sockets[0] === undefined || !closed.includes(sockets[0])) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
