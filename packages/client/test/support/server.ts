import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const BASE_URL = 'https://api.test';
export const API_KEY = 'svc_key01_s3cr3tV4lue';

/**
 * One msw server per test file; each test installs its own handlers with `server.use`. A request that
 * no handler answers fails the test, so "nothing was sent" is checked by the absence of a handler.
 */
export function useServer() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** A request as the server saw it. */
export interface Seen {
  method: string;
  url: URL;
  /** The request target as sent (path and query, percent-encoding kept). */
  rawTarget: string;
  headers: Headers;
  body: string;
}

export async function record(request: Request): Promise<Seen> {
  const raw = request.url;
  return {
    method: request.method,
    url: new URL(raw),
    rawTarget: raw.slice(raw.indexOf('/', 'https://'.length)),
    headers: request.headers,
    body: await request.text(),
  };
}
