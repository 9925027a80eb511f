import { type AddressInfo, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP listener that counts the connections it gets and answers each with a tiny 200: where a
 * refused target would lead, so that a test can show no connection was ever opened.
 */
export async function startCountingListener(): Promise<{
  port: number;
  connections(): number;
  close(): Promise<void>;
}> {
  let connections = 0;
  const sockets: Socket[] = [];
  const listener = createServer((socket) => {
    connections++;
    sockets.push(socket);
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
  });
  await new Promise<void>((done) => listener.listen(0, '127.0.0.1', () => done()));
  return {
    port: (listener.address() as AddressInfo).port,
    connections: () => connections,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => listener.close(() => done()));
    },
  };
}
