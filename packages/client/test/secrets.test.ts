import { inspect } from 'node:util';
import { APIError, Client } from '@svc-kit/client';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { API_KEY, BASE_URL, useServer } from './support/server.js';

const server = useServer();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const WEBHOOKS = `${BASE_URL}/v1/workspace/webhooks`;

/** Everything a log line could show of an error. */
function everythingShown(error: unknown): string {
  const e = error as APIError;
  return [String(e), e.message, e.stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e.body ?? null)].join(
    '\n',
  );
}

describe('the API key never shows', () => {
  it('not in the client when it is logged or serialised', () => {
    expect(inspect(client, { depth: 5, showHidden: true })).not.toContain(API_KEY);
    expect(JSON.stringify(client)).not.toContain(API_KEY);
    expect(JSON.stringify(client)).toContain(BASE_URL);
  });

  it('not in an error, even when a server echoes the Authorization header (JSON error body)', async () => {
    server.use(
      http.get(WEBHOOKS, ({ request }) =>
        HttpResponse.json(
          {
            error: {
              code: 'unauthenticated',
              message: `bad ${request.headers.get('authorization')}`,
              request_id: 'r',
            },
          },
          { status: 401 },
        ),
      ),
    );
    const error = await client.webhooks.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(everythingShown(error)).not.toContain(API_KEY);
    expect((error as APIError).message).toContain('[redacted]');
  });

  it('not in an error, when a proxy echoes it in text', async () => {
    server.use(
      http.get(
        WEBHOOKS,
        ({ request }) =>
          new HttpResponse(`<pre>${request.headers.get('authorization')}</pre>`, { status: 502 }),
      ),
    );
    const error = await client.webhooks.list().catch((e: unknown) => e);
    expect(everythingShown(error)).not.toContain(API_KEY);
  });

  it('not in a connection error whose cause mentions it', async () => {
    const leaky = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      maxRetries: 0,
      fetch: (_url, init) =>
        Promise.reject(new TypeError(`refused ${new Headers(init.headers).get('authorization')}`)),
    });
    const error = await leaky.webhooks.list().catch((e: unknown) => e);
    expect((error as Error).message).not.toContain(API_KEY);
  });
});
