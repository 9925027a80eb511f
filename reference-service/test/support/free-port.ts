import { createServer } from 'node:net';

/**
 * A loopback port free now, for a listener a test starts later (a child process, a restart on the same
 * port). It is picked below Linux's ephemeral range (32768 and up): a port `listen(0)` hands out comes from
 * that range, and between the check and the listener's start any process's outgoing connection may take
 * it as its local port (seen in CI as EADDRINUSE). Below the range only listeners take ports.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}
