import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client } from '@svc-kit/client';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { ServiceContext } from '../../src/context.js';
import type { ResolveHost } from '../../src/domain/url-policy.js';
import { loggerOptions } from '../../src/http/logger.js';
import { peerEndpointOf, signerFor } from '../../src/peer/own-identity.js';
import { PublicAddress } from '../../src/public-address.js';
import type { OpenedStore } from '../../src/store/open.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import type { Backend } from '../support/backends.js';
import { takeEvents } from '../support/endpoints.js';
import { createTenant, testContext } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

/** One clock for every instance of a test, moved by hand: limits and windows become exact. */
export class TestClock {
  constructor(public at = Date.now()) {}
  readonly now = () => this.at;
  advance(ms: number): void {
    this.at += ms;
  }
}

/** A service instance with its own database, serving /v1 and the peer protocol on 127.0.0.1. */
export interface Instance {
  ctx: ServiceContext;
  store: OpenedStore;
  baseUrl: string;
  port: number;
  /** Stops serving (the database stays open), as a peer that is down. */
  stop(): Promise<void>;
  /**
   * Serves again on the same port, so cards naming this endpoint reach it again. `publicUrl` makes the
   * instance name another base URL in its cards from then on (a peer that moved or was renamed).
   */
  restart(options?: { publicUrl?: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * `twinOf`: a second instance on the same database, as deployed behind one public URL with one at-rest
 * key (SVC_PUBLIC_URL, SVC_SECRET_KEY). `resolveHost`: what names resolve to for this instance's
 * outbound calls (the test DNS table unless given).
 */
export async function startInstance(
  store: OpenedStore,
  clock: TestClock,
  twinOf?: Instance,
  options: { resolveHost?: ResolveHost } = {},
): Promise<Instance> {
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const ctx = testContext(store, {
    ...(twinOf ? { secretBox: twinOf.ctx.secretBox } : {}),
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    now: clock.now,
    passwordCost: 'test',
  });
  const build = async (
    listenPort: number,
    publicUrl = twinOf?.baseUrl,
  ): Promise<{ app: FastifyInstance; url: URL }> => {
    ctx.publicAddress = new PublicAddress({ publicUrl });
    const app = await buildApp(ctx, {
      logger: pino(loggerOptions('warn'), sink),
      peer: { allowLocalhost: true, timeoutMs: 2000 },
    });
    const address = await app.listen({ host: '127.0.0.1', port: listenPort });
    ctx.publicAddress.settle(address);
    return { app, url: new URL(address) };
  };
  let current: FastifyInstance | undefined;
  const first = await build(0);
  current = first.app;
  const boundPort = Number(first.url.port);
  const instance: Instance = {
    ctx,
    store,
    baseUrl: first.url.origin,
    port: boundPort,
    async stop() {
      await current?.close();
      current = undefined;
    },
    async restart(restartOptions = {}) {
      current = (await build(boundPort, restartOptions.publicUrl ?? twinOf?.baseUrl)).app;
    },
    async close() {
      await current?.close();
      current = undefined;
    },
  };
  return instance;
}

/**
 * The suite's two instances, each on a database of its own from `backend`, both on `clock`: started before
 * its tests (then handed to `started`) and closed after them.
 */
export function useTwoInstances(
  backend: Backend,
  clock: TestClock,
  started: (one: Instance, two: Instance) => void,
): void {
  const stores = [useStore(backend), useStore(backend)];
  const instances: Instance[] = [];
  beforeAll(async () => {
    for (const store of stores) instances.push(await startInstance(store, clock));
    started(instances[0]!, instances[1]!);
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
  });
}

export interface Party {
  instance: Instance;
  slug: string;
  identityId: string;
  workspaceId: string;
  key: string;
  api: Client;
  /** The identity's current card and fingerprint, as its peer endpoint hands them out. */
  card: string;
  fingerprint: string;
}

/** A workspace with one identity on `instance`, a key with every permission and a typed client. */
export async function createParty(instance: Instance, slug: string): Promise<Party> {
  const tenant = await createTenant(instance.ctx);
  const identityId = `idn_${randomBytes(8).toString('hex')}`;
  const fullSlug = `${slug}-${randomBytes(4).toString('hex')}`;
  await insertIdentity(instance.ctx.db, {
    id: identityId,
    workspace_id: tenant.workspaceId,
    slug: fullSlug,
    created_at: instance.ctx.now(),
  });
  const signer = await signerFor(
    instance.ctx.db,
    instance.ctx.secretBox,
    { id: identityId, slug: fullSlug },
    peerEndpointOf(instance.baseUrl),
    instance.ctx.now(),
  );
  return {
    instance,
    slug: fullSlug,
    identityId,
    workspaceId: tenant.workspaceId,
    key: tenant.key,
    api: new Client({
      apiKey: tenant.key,
      baseUrl: instance.baseUrl,
      validateResponses: true,
      maxRetries: 0,
    }),
    card: signer.card,
    fingerprint: signer.fingerprint,
  };
}

/** A reader of the events the party's workspace makes from now on, through an endpoint taking them all. */
export function eventsFrom(party: Party) {
  const { db, secretBox, now } = party.instance.ctx;
  return takeEvents(db, secretBox, party.workspaceId, now());
}

/** A and B as active contacts: A asks, B approves. */
export async function befriend(a: Party, b: Party): Promise<void> {
  await a.api.contacts.request(a.slug, { card: b.card });
  await b.api.contacts.approve(b.slug, a.fingerprint);
}

export async function statusesOf(party: Party): Promise<Record<string, string>> {
  const { contacts } = await party.api.contacts.list(party.slug);
  return Object.fromEntries(contacts.map((contact) => [contact.fingerprint, contact.status]));
}
