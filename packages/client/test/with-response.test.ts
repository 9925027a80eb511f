import { APIPromise, Client, NotFoundError } from '@svc-kit/client';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { errorBody } from './support/fixtures.js';
import { API_KEY, BASE_URL, useServer } from './support/server.js';

const server = useServer();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
const WEBHOOKS = `${BASE_URL}/v1/workspace/webhooks`;
const LIST = { endpoints: [], events: ['message.received'], enabled: true };

describe('APIPromise', () => {
  it('awaiting gives the data; withResponse gives data, the raw Response and the request id', async () => {
    let requests = 0;
    server.use(
      http.get(WEBHOOKS, () => {
        requests++;
        return HttpResponse.json(LIST, { headers: { 'x-request-id': 'req_abc', 'x-extra': 'yes' } });
      }),
    );
    const promise = client.webhooks.list();
    expect(promise).toBeInstanceOf(APIPromise);
    expect(promise).toBeInstanceOf(Promise);
    const { data, response, requestId } = await promise.withResponse();
    expect(data).toEqual(LIST);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(requestId).toBe('req_abc');
    // The same single request serves both ways of reading it.
    expect(await promise).toEqual(LIST);
    expect(requests).toBe(1);
  });

  it('requestId is undefined when the service sends none', async () => {
    server.use(http.get(WEBHOOKS, () => HttpResponse.json(LIST)));
    expect((await client.webhooks.list().withResponse()).requestId).toBeUndefined();
  });

  it('then, catch and finally behave like a promise’s', async () => {
    server.use(
      http.get(WEBHOOKS, () => HttpResponse.json(errorBody('not_found', 'gone', 'req_nf'), { status: 404 })),
    );
    let finallyRan = false;
    const caught = await client.webhooks
      .list()
      .finally(() => {
        finallyRan = true;
      })
      .catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(NotFoundError);
    expect(finallyRan).toBe(true);
    await expect(client.webhooks.list().withResponse()).rejects.toBeInstanceOf(NotFoundError);
    const mapped = await client.webhooks.list().then(
      () => 'fulfilled',
      (error: unknown) => (error instanceof NotFoundError ? error.requestId : 'other'),
    );
    expect(mapped).toBe('req_nf');
  });

  it('works with Promise.all', async () => {
    server.use(http.get(WEBHOOKS, () => HttpResponse.json(LIST)));
    expect(await Promise.all([client.webhooks.list(), client.webhooks.list()])).toEqual([LIST, LIST]);
  });
});
