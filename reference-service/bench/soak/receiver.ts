import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADER_NAMES } from '@svc-kit/webhooks';

/** How the receiver behaves in a phase of the soak. */
export type ReceiverMood = 'ok' | 'slow' | 'failing' | 'down';

/**
 * The soak's webhook receiver, on a fixed port so that it can go down and come back: answers 204, or
 * after 1.5 s (`slow`), or 500 (`failing`), or refuses connections (`down`: the server is closed). It
 * counts, per event id, the 2xx answers it gave, and the lag from the event's `created_at`.
 */
export async function startSoakReceiver() {
  let mood: ReceiverMood = 'ok';
  const answeredOk = new Map<string, number>();
  let lags: number[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const eventId = String(req.headers[HEADER_NAMES.eventId]);
      const answer = () => {
        if (mood === 'failing') {
          res.writeHead(500).end('failing on purpose');
          return;
        }
        answeredOk.set(eventId, (answeredOk.get(eventId) ?? 0) + 1);
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { created_at: number };
          lags.push(Date.now() - body.created_at);
        } catch {
          // A body that is not JSON is the service's fault; the lost-event check shows it.
        }
        res.writeHead(204).end();
      };
      if (mood === 'slow') setTimeout(answer, 1_500);
      else answer();
    });
  };
  const listen = async (port: number) => {
    const next = createServer(handler);
    next.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', resolve));
    return next;
  };
  let server: Server = await listen(0);
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    mood: () => mood,
    async setMood(next: ReceiverMood) {
      if (next === mood) return;
      if (next === 'down') await close();
      else if (mood === 'down') server = await listen(port);
      mood = next;
    },
    answeredOk,
    /** The lags (ms) recorded since the last call. */
    takeLags(): number[] {
      const taken = lags;
      lags = [];
      return taken;
    },
    async close() {
      if (mood !== 'down') await close();
    },
  };
}
