import { Client, type Fetch } from '@svc-kit/client';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, BASE_URL, record, type Seen, useServer } from './support/server.js';

const server = useServer();
const WEBHOOKS = `${BASE_URL}/v1/workspace/webhooks`;
const LIST = { endpoints: [], events: [], enabled: false };

function answerList(seen: Seen[]) {
  server.use(
    http.get(WEBHOOKS, async ({ request }) => {
      seen.push(await record(request));
      return HttpResponse.json(LIST);
    }),
  );
}

describe('which fetch is used', () => {
  // Saved per test: msw installs its own globalThis.fetch when the server starts listening.
  let saved: typeof fetch | undefined;
  afterEach(() => {
    if (saved) globalThis.fetch = saved;
    saved = undefined;
  });

  it('globalThis.fetch is looked up at request time, not at construction', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
    const calls: string[] = [];
    saved = globalThis.fetch;
    globalThis.fetch = (async (input: string | URL | Request) => {
      calls.push(String(input));
      return Response.json(LIST);
    }) as typeof fetch;
    expect(await client.webhooks.list()).toEqual(LIST);
    expect(calls).toEqual([WEBHOOKS]);
  });

  it('the fetch option is used, with a URL string and an init object', async () => {
    const seen: Seen[] = [];
    answerList(seen);
    const inits: RequestInit[] = [];
    const custom: Fetch = (url, init) => {
      inits.push(init);
      return globalThis.fetch(url, init);
    };
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, fetch: custom });
    await client.webhooks.list();
    expect(inits).toHaveLength(1);
    expect(inits[0]?.method).toBe('GET');
    expect(seen).toHaveLength(1);
  });

  it('the fetch option is called as a plain function (a browser fetch refuses another `this`)', async () => {
    let receiver: unknown = 'not called';
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      fetch: function (this: unknown) {
        receiver = this;
        return Promise.resolve(Response.json(LIST));
      },
    });
    await client.webhooks.list();
    expect(receiver).toBeUndefined();
  });
});

describe('authentication', () => {
  it('an API key is sent as a Bearer token, and no credentials mode is set', async () => {
    const inits: RequestInit[] = [];
    const seen: Seen[] = [];
    answerList(seen);
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      fetch: (url, init) => {
        inits.push(init);
        return fetch(url, init);
      },
    });
    await client.webhooks.list();
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(inits[0]?.credentials).toBeUndefined();
  });

  it('session mode sends credentials: same-origin (the cookie never leaves for another origin) and no Authorization header', async () => {
    const inits: RequestInit[] = [];
    const seen: Seen[] = [];
    answerList(seen);
    const portal = new Client({
      session: true,
      baseUrl: BASE_URL,
      headers: { authorization: 'Bearer should-not-be-sent' },
      fetch: (url, init) => {
        inits.push(init);
        return fetch(url, init);
      },
    });
    await portal.webhooks.list();
    expect(inits[0]?.credentials).toBe('same-origin');
    expect(seen[0]?.headers.get('authorization')).toBeNull();
  });

  it('extra headers of the client and of the call are sent', async () => {
    const seen: Seen[] = [];
    answerList(seen);
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      headers: { 'x-team': 'a', 'x-both': 'client' },
    });
    await client.webhooks.list({ headers: [['x-both', 'call']] });
    expect(seen[0]?.headers.get('x-team')).toBe('a');
    expect(seen[0]?.headers.get('x-both')).toBe('call');
  });
});
