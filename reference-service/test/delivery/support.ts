import type { AddressInfo } from 'node:net';
import { operations } from '@svc-kit/contract';
import { HEADER_NAMES, type WebhookEvent } from '@svc-kit/webhooks';
import { webhookMiddleware } from '@svc-kit/webhooks/express';
import { webhookPlugin } from '@svc-kit/webhooks/fastify';
import { Webhooks } from '@svc-kit/webhooks/node';
import express from 'express';
import Fastify from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, expect } from 'vitest';
import { type RunningDelivery, startDelivery } from '../../src/delivery/start.js';
import { newId } from '../../src/domain/ids.js';
import type { ResolveHost } from '../../src/domain/url-policy.js';
import type { Relay } from '../../src/relay/relay.js';
import type { OpenedStore } from '../../src/store/open.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import type { SecretBox } from '../../src/store/secret-box.js';
import type { Backend } from '../support/backends.js';
import { call, createTenant, startTestService, type Tenant, type TestService } from '../support/harness.js';
import { lineSink } from '../support/line-sink.js';
import { useStore } from '../support/service-lifecycle.js';

export const WEBHOOKS = '/v1/workspace/webhooks';

export interface Received {
  deliveryId: string;
  eventId: string;
  type: string;
  event: WebhookEvent;
}

/**
 * A real receiver (Express or Fastify with the SDK's adapter) that verifies every delivery and records it.
 * Its secret is set after start-up, because the service only tells the secret once the endpoint (whose URL
 * is this receiver's) exists; until then every request is refused.
 */
export interface Receiver {
  url: string;
  setSecret(secret: string | string[]): void;
  /** Verified deliveries, in arrival order. */
  readonly received: Received[];
  /** Every request that reached the receiver, verified or not. */
  readonly requests: number;
  /** Requests the SDK refused (bad signature, stale timestamp, ...). */
  readonly refused: number;
  close(): Promise<void>;
}

/** Records deliveries; `handle` delegates to a `Webhooks` built when the secret is known. */
function lateBoundReceiver() {
  const state = { received: [] as Received[], requests: 0, refused: 0 };
  let current: Webhooks | undefined;
  const delegate: Pick<Webhooks, 'handle'> = {
    handle: async (request) => {
      state.requests++;
      if (!current) return { status: 503, headers: { 'content-type': 'text/plain' }, body: 'not ready' };
      return current.handle(request);
    },
  };
  const setSecret = (secret: string | string[]) => {
    const webhooks = new Webhooks({ secret });
    webhooks.onAny((event, context) => {
      state.received.push({
        deliveryId: context.deliveryId ?? '',
        eventId: event.id,
        type: event.type,
        event,
      });
    });
    webhooks.onError(() => {
      state.refused++;
    });
    current = webhooks;
  };
  return { state, delegate, setSecret };
}

function receiverView(
  url: string,
  bound: ReturnType<typeof lateBoundReceiver>,
  close: () => Promise<void>,
): Receiver {
  return {
    url,
    setSecret: bound.setSecret,
    get received() {
      return bound.state.received;
    },
    get requests() {
      return bound.state.requests;
    },
    get refused() {
      return bound.state.refused;
    },
    close,
  };
}

export async function startExpressReceiver(): Promise<Receiver> {
  const bound = lateBoundReceiver();
  const app = express();
  app.post('/hooks', webhookMiddleware(bound.delegate));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return receiverView(`http://127.0.0.1:${port}/hooks`, bound, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}

export async function startFastifyReceiver(): Promise<Receiver> {
  const bound = lateBoundReceiver();
  const app = Fastify();
  await app.register(webhookPlugin, { webhooks: bound.delegate, path: '/hooks' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return receiverView(`http://127.0.0.1:${port}/hooks`, bound, () => app.close());
}

/** A service on a real socket with its delivery worker running (sandbox: loopback receivers admitted). */
export interface DeliveringService extends TestService {
  delivery: RunningDelivery;
  /** The delivery worker's warnings so far, as raw log lines. */
  deliveryLogs(): string;
}

export async function startDeliveringService(
  store: OpenedStore,
  options: {
    allowLocalhostWebhooks?: boolean;
    totalTimeoutMs?: number;
    /** Serves `svc-webhooks listen` through this relay (routes and the worker's transport). */
    relay?: Relay;
    secretBox?: SecretBox;
    now?: () => number;
    /** How names resolve, at registration and when dialled: the test DNS table unless told. */
    resolveHost?: ResolveHost;
  } = {},
): Promise<DeliveringService> {
  const service = await startTestService(store, {
    allowLocalhostWebhooks: options.allowLocalhostWebhooks ?? true,
    extra: { sandboxRoutes: true, relay: options.relay },
    ...(options.secretBox === undefined ? {} : { secretBox: options.secretBox }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
  });
  const { sink, lines: warnings } = lineSink();
  const quiet = pino({ level: 'warn' }, sink);
  const delivery = await startDelivery(
    service.ctx,
    quiet,
    {
      pollIntervalMs: 200,
      ...(options.totalTimeoutMs === undefined ? {} : { totalTimeoutMs: options.totalTimeoutMs }),
    },
    { relay: options.relay },
  );
  return {
    ...service,
    delivery,
    deliveryLogs: () => warnings.join(''),
    async close() {
      await service.close();
      await delivery.stop();
    },
  };
}

/**
 * The suite's store and delivering service on `backend`: opened before its tests (then handed to
 * `started`) and closed after them, with every receiver made by the returned function.
 */
export function useDeliveringService(
  backend: Backend,
  started: (store: OpenedStore, service: DeliveringService) => void,
): (kind?: 'express' | 'fastify') => Promise<Receiver> {
  const store = useStore(backend);
  let service: DeliveringService | undefined;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    service = await startDeliveringService(store);
    started(store, service);
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
  return async (kind = 'express') => {
    const receiver = kind === 'express' ? await startExpressReceiver() : await startFastifyReceiver();
    receivers.push(receiver);
    return receiver;
  };
}

/** A tenant with webhooks on (unless told) and one identity, `slug`; its workspace's id as `createTenant`'s. */
export async function createDeliveryTenant(
  service: TestService,
  options: { webhooksEnabled?: boolean; slug?: string; workspaceId?: string } = {},
): Promise<Tenant & { slug: string }> {
  const tenant = await createTenant(service.ctx, {
    webhooksEnabled: options.webhooksEnabled ?? true,
    ...(options.workspaceId === undefined ? {} : { workspaceId: options.workspaceId }),
  });
  const slug = options.slug ?? `idn-${newId('x').slice(2, 10)}`;
  await insertIdentity(service.ctx.db, {
    id: newId('idn'),
    workspace_id: tenant.workspaceId,
    slug,
    created_at: Date.now(),
  });
  return { ...tenant, slug };
}

export async function createEndpoint(
  service: TestService,
  tenant: Tenant,
  url: string,
  events: string[] = [],
): Promise<{ id: string; secret: string }> {
  const created = await call(service, 'POST', WEBHOOKS, {
    auth: { cookie: tenant.steppedUpSession },
    body: { url, events },
  });
  expect(created.status).toBe(201);
  const parsed = operations.createWebhook.success.schema.parse(created.body);
  return { id: parsed.endpoint.id, secret: parsed.secret };
}

/** Emits an event through the sandbox route (the same outbox path as a real change). */
export async function trigger(
  service: TestService,
  tenant: Tenant,
  type: string,
  identity?: string,
): Promise<{ id: string; created_at: number }> {
  const result = await call(service, 'POST', '/sandbox/events', {
    auth: { key: tenant.key },
    body: identity === undefined ? { type } : { type, identity },
  });
  expect(result.status).toBe(201);
  return (result.body as { event: { id: string; created_at: number } }).event;
}

export async function deliveries(service: TestService, tenant: Tenant, endpointId: string) {
  const result = await call(service, 'GET', `${WEBHOOKS}/${endpointId}/deliveries?limit=100`, {
    auth: { key: tenant.key },
  });
  expect(result.status).toBe(200);
  return operations.listWebhookDeliveries.success.schema.parse(result.body).deliveries;
}

/** Waits until `check` holds (polling), or fails with what it last saw. */
export async function eventually<T>(
  read: () => T | Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met in time; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}

/** Every delivery header the SDK names, as the receiver saw them (for assertions on the request). */
export const DELIVERY_HEADERS = Object.values(HEADER_NAMES);
