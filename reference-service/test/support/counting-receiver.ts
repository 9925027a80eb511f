import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback webhook receiver that answers 200 to everything and counts the requests read in full. */
export async function startCountingReceiver(): Promise<{
  url: string;
  received(): number;
  close(): Promise<void>;
}> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
