import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeVerify } from '@svc-kit/webhooks/node';

export interface Arrival {
  eventId: string;
  type: string;
  /** Labels of the secrets whose signature verified this delivery. */
  verifiedBy: string[];
}

/**
 * A real webhook receiver on loopback, verifying every delivery with the receiver SDK against each secret
 * it was given (labelled, so a test sees which secrets a rotated delivery satisfies). It answers 200 when
 * one verified, 400 otherwise, as an integrator's app would.
 */
export interface TestReceiver {
  url: string;
  trust(label: string, secret: string): void;
  readonly arrivals: Arrival[];
  /** Requests no given secret verified. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<TestReceiver> {
  const secrets = new Map<string, string>();
  const arrivals: Arrival[] = [];
  let refused = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const verifiedBy: string[] = [];
      let event: { id: string; type: string } | undefined;
      for (const [label, secret] of secrets) {
        const result = safeVerify(body, request.headers, { secret });
        if (result.ok) {
          verifiedBy.push(label);
          event = result.event;
        }
      }
      if (event === undefined) {
        refused++;
        response.writeHead(400, { 'content-type': 'text/plain' }).end('signature did not verify');
        return;
      }
      arrivals.push({ eventId: event.id, type: event.type, verifiedBy });
      response.writeHead(200, { 'content-type': 'application/json' }).end(`{"received":"${event.id}"}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    trust: (label, secret) => secrets.set(label, secret),
    arrivals,
    get refused() {
      return refused;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
