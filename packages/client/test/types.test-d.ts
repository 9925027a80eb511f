import {
  type APIError,
  type APIErrorCode,
  type APIPromise,
  Client,
  type RequestInput,
  type WithResponse,
} from '@svc-kit/client';
import type {
  Contact,
  ErrorCode,
  Exposure,
  Integration,
  WebhookDelivery,
  WebhookEndpoint,
} from '@svc-kit/contract';
import { describe, expectTypeOf, it } from 'vitest';

const client = new Client({ apiKey: 'svc_a_b', baseUrl: 'https://api.example.com' });

describe('answers are typed from the contract', () => {
  it('webhooks', () => {
    expectTypeOf(client.webhooks.create({ url: 'https://h.example' })).toEqualTypeOf<
      APIPromise<{ endpoint: WebhookEndpoint; secret: string }>
    >();
    expectTypeOf(client.webhooks.list()).resolves.toEqualTypeOf<{
      endpoints: WebhookEndpoint[];
      events: string[];
      enabled: boolean;
    }>();
    expectTypeOf(client.webhooks.rotateSecret('wh')).resolves.toEqualTypeOf<{
      secret: string;
      previous_accepted_until: number;
    }>();
    expectTypeOf(client.webhooks.delete('wh')).resolves.toEqualTypeOf<undefined>();
    expectTypeOf(client.webhooks.listDeliveries('wh', { limit: 10 })).resolves.toEqualTypeOf<{
      deliveries: WebhookDelivery[];
    }>();
    // `limit` has a default.
    expectTypeOf(client.webhooks.listDeliveries('wh')).resolves.toEqualTypeOf<{
      deliveries: WebhookDelivery[];
    }>();
  });

  it('contacts', () => {
    expectTypeOf(client.contacts.list('bot')).resolves.toEqualTypeOf<{ contacts: Contact[] }>();
    expectTypeOf(client.contacts.setPetname('bot', 'fp', { petname: 'x' })).resolves.toEqualTypeOf<null>();
    expectTypeOf(client.contacts.unblock('bot', 'fp')).resolves.toEqualTypeOf<{
      status: 'active' | 'forgotten';
      fingerprint: string;
    }>();
    const called = client.contacts.callTool('bot', 'fp', { tool: 't' });
    expectTypeOf(called).resolves.toHaveProperty('ok').toEqualTypeOf<boolean>();
    // Any JSON value, never undefined (the contract refines `unknown` so).
    expectTypeOf(called).resolves.toHaveProperty('result').toEqualTypeOf<NonNullable<unknown> | null>();
  });

  it('integrations', () => {
    expectTypeOf(client.integrations.list('bot')).resolves.toEqualTypeOf<{ integrations: Integration[] }>();
    expectTypeOf(client.integrations.getExposure('bot', 'gh')).resolves.toEqualTypeOf<Exposure>();
    expectTypeOf(client.integrations.delete('bot', 'gh')).resolves.toEqualTypeOf<null>();
  });

  it('withResponse and the generic request()', () => {
    expectTypeOf(client.contacts.block('bot', 'fp').withResponse()).toEqualTypeOf<
      Promise<WithResponse<{ status: 'blocked'; fingerprint: string }>>
    >();
    expectTypeOf(
      client.request('approveContact', { params: { slug: 'bot', fingerprint: 'fp' } }),
    ).resolves.toEqualTypeOf<{
      status: 'approved';
      fingerprint: string;
      preset: string;
      notified: boolean;
    }>();
    expectTypeOf(client.request('listWebhooks')).resolves.toHaveProperty('endpoints');
    expectTypeOf<RequestInput<'setTrust'>>().toEqualTypeOf<{
      params: { slug: string; fingerprint: string };
      query?: never;
      body: { trust: 'messages_only' | 'may_instruct' };
    }>();
  });
});

describe('wrong argument shapes do not compile', () => {
  it('resource methods', () => {
    // @ts-expect-error: `url` is required
    client.webhooks.create({ events: [] });
    // @ts-expect-error: not a sent event name
    client.webhooks.create({ url: 'https://h.example', events: ['message.nope'] });
    // @ts-expect-error: `status` is `active` or `paused`
    client.webhooks.setStatus('wh', { status: 'stopped' });
    // @ts-expect-error: `limit` misspelt
    client.webhooks.listDeliveries('wh', { limt: 5 });
    // @ts-expect-error: `limit` is a number of deliveries
    client.webhooks.listDeliveries('wh', { limit: true });
    // @ts-expect-error: the fingerprint is missing
    client.contacts.block('bot');
    // @ts-expect-error: not a settable preset
    client.contacts.approve('bot', 'fp', { preset: 'family' });
    // @ts-expect-error: not a trust value
    client.contacts.setTrust('bot', 'fp', { trust: 'everything' });
    // @ts-expect-error: unknown field
    client.contacts.request('bot', { card: 'c', nickname: 'x' });
    // @ts-expect-error: an option that does not exist
    client.webhooks.list({ retries: 3 });
  });

  it('the generic request()', () => {
    // @ts-expect-error: not an operation
    client.request('dropDatabase');
    // @ts-expect-error: approveContact needs its path parameters
    client.request('approveContact');
    // @ts-expect-error: listWebhooks takes no body
    client.request('listWebhooks', { body: {} });
    // @ts-expect-error: wrong parameter name
    client.request('deleteWebhook', { params: { webhookId: 'wh' } });
  });

  it('constructor options', () => {
    // @ts-expect-error: a key and a session at once
    new Client({ apiKey: 'k', session: true, baseUrl: 'https://api.example.com' });
    // Neither a key nor a session compiles: the key then comes from SVC_API_KEY, or the constructor refuses.
    new Client({ baseUrl: 'https://api.example.com' });
    // @ts-expect-error: not a log level
    new Client({ baseUrl: 'https://api.example.com', logLevel: 'verbose' });
    // @ts-expect-error: a logger needs error, warn, info and debug
    new Client({ baseUrl: 'https://api.example.com', logger: { log: () => {} } });
    new Client({ baseUrl: 'https://api.example.com', logLevel: 'debug', logger: console });
    // A possibly missing key (e.g. from the environment) compiles; the constructor refuses it at run time.
    new Client({ apiKey: undefined as string | undefined, baseUrl: 'https://api.example.com' });
    new Client({ session: true, baseUrl: 'https://portal.example.com' });
  });
});

describe('error codes', () => {
  it('APIError.code offers the contract codes and keeps any newer string', () => {
    expectTypeOf<APIError['code']>().toEqualTypeOf<APIErrorCode | undefined>();
    expectTypeOf<ErrorCode>().toExtend<APIErrorCode>();
    expectTypeOf<'a_code_added_later'>().toExtend<APIErrorCode>();
  });

  it('hasCode() refuses a code the contract does not have', () => {
    const error = {} as APIError;
    error.hasCode('step_up_required');
    // @ts-expect-error: not a code of the contract
    error.hasCode('no_such_code');
  });
});
