import { request } from 'node:http';
import { expect } from 'vitest';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * One HTTP call through node:http, for what fetch will not do: any `Host` header, and a chosen source
 * address on the loopback network (127.0.0.2, 127.0.3.4… all reach a server on 127.0.0.1 under Linux),
 * so that tests can play clients at different addresses.
 */
export function rawCall(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; localAddress?: string } = {},
): Promise<RawAnswer> {
  const url = new URL(path, baseUrl);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: `${url.pathname}${url.search}`,
        headers,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        agent: false,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: parsed });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** 429 with the spec's body: `retry_after` whole seconds, equal to the Retry-After header. */
export function expectRateLimited(answer: RawAnswer): void {
  expect(answer.status).toBe(429);
  const error = (answer.body as { error: { code: string; retry_after: number; request_id: string } }).error;
  expect(error.code).toBe('rate_limited');
  expect(Number.isInteger(error.retry_after) && error.retry_after > 0).toBe(true);
  expect(answer.headers['retry-after']).toBe(String(error.retry_after));
  expect(error.request_id).toBe(answer.headers['x-request-id']);
}
