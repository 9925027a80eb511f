import { randomBytes } from 'node:crypto';
import { contactSchema, webhookDeliverySchema, webhookEndpointSchema } from '@svc-kit/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contactRecord } from '../../src/features/contacts/record.js';
import { endpointRecord } from '../../src/features/webhooks/records.js';
import { liveEndpoints } from '../../src/features/webhooks/service.js';
import { JsonText, jsonObject } from '../../src/store/json-text.js';
import type { OpenedStore } from '../../src/store/open.js';
import { type ContactRow, listContactRecordsOfSlug, saveContact } from '../../src/store/queries/contacts.js';
import {
  abandonStaleDeliveries,
  recordAttempt,
  recordSuccesses,
} from '../../src/store/queries/deliveries-claim.js';
import {
  removeAbandonedListeners,
  setListenerStream,
  touchListeners,
} from '../../src/store/queries/listeners.js';
import {
  deliveryRecordJsonSql,
  insertDelivery,
  listNewestDeliveryRecords,
  type WebhookDeliveryRow,
} from '../../src/store/queries/webhook-deliveries.js';
import {
  insertEndpoint,
  listLiveEndpointRecords,
  removeEndpoint,
  rotateEndpointSecret,
  setEndpointStatus,
  type WebhookEndpointRow,
} from '../../src/store/queries/webhook-endpoints.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { pendingDelivery, seedActiveEndpoint } from '../support/endpoints.js';
import { addIdentity } from '../support/identity.js';
import { seedWorkspace } from '../support/workspaces.js';

/**
 * The long lists are written as JSON by the database (store/json-text.ts). These properties hold them to
 * what the service would write itself: the same bytes as `JSON.stringify` of the records, built in the
 * contract's member order from the same rows, for any text a row may hold (quotes, backslashes, control
 * characters, any code point but NUL, which PostgreSQL's text cannot hold).
 */
const anyText = fc.string({ unit: 'binary', maxLength: 24 }).filter((text) => !text.includes('\u0000'));
const instant = fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_009 }); // ties break by the key
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

const contactArb = fc.record({
  display_name: anyText,
  endpoint: anyText,
  status: fc.constantFrom('active', 'pending_in', 'pending_out', 'blocked') as fc.Arbitrary<
    ContactRow['status']
  >,
  preset: anyText,
  permissions: fc.array(anyText, { maxLength: 3 }),
  trust_flag: anyText,
  petname: anyText,
  last_seen_at: instant,
  acceptance_unheard_since: maybe(instant),
  created_at: instant,
});

/** Deliveries whose latency is drawn from `latency` (a double column: the listen relay stores what its CLI reports). */
const deliveryArb = (latency: fc.Arbitrary<number>) =>
  fc.record({
    event_type: anyText,
    attempt: fc.integer({ min: 1, max: 20 }),
    status: fc.constantFrom('pending', 'sending', 'delivered', 'failed', 'abandoned'),
    http_status: maybe(fc.integer({ min: 100, max: 599 })),
    latency_ms: maybe(latency),
    response_excerpt: maybe(anyText),
    next_attempt_at: maybe(instant),
    created_at: instant,
  });

const endpointArb = fc.record({
  url: anyText,
  events: fc.array(anyText, { maxLength: 3 }),
  status: fc.constantFrom('active', 'paused') as fc.Arbitrary<WebhookEndpointRow['status']>,
  consecutive_failures: fc.integer({ min: 0, max: 20 }),
  rotating_until: maybe(instant),
  created_at: instant,
  updated_at: instant,
  deleted_at: maybe(instant),
});

/** The members of a record in the order the contract lists them. */
const inContractOrder = (keys: readonly string[], row: Record<string, unknown>) =>
  Object.fromEntries(keys.map((key) => [key, row[key]]));

describe.each(BACKENDS)('lists written as JSON by $name', (backend) => {
  let store: OpenedStore;
  let workspaceId: string;
  let endpointId: string;
  /** An endpoint of the workspace with no delivery yet: each property run gets its own log. */
  const newEndpoint = () =>
    seedActiveEndpoint(store.db, createSecretBox(randomBytes(32)), workspaceId, 'https://hooks.example.com/');

  beforeAll(async () => {
    store = await backend.open();
    workspaceId = await seedWorkspace(store.db);
    ({ id: endpointId } = await newEndpoint());
  });
  afterAll(async () => {
    await store?.close();
  });

  it('writes the contacts as JSON.stringify writes contactRecord of the same rows, filtered or not', async () => {
    let identities = 0;
    // Each contact saved, then some saved again as other contacts (the upsert's update): the record a row
    // keeps (migration 0018) follows every write.
    const changes = fc.array(fc.record({ index: fc.nat(), into: contactArb }), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(fc.array(contactArb, { maxLength: 6 }), changes, async (contacts, edits) => {
        const slug = `json-${identities++}`;
        const identityId = await addIdentity(store.db, workspaceId, slug);
        const fingerprints = contacts.map(() => `sha256:${randomBytes(4).toString('hex')}`);
        const save = (contact: (typeof contacts)[number], fingerprint: string) =>
          saveContact(store.db, {
            ...contact,
            identity_id: identityId,
            workspace_id: workspaceId,
            fingerprint,
            public_key: 'k',
            card: 'c',
            card_expires_at: 0,
            blocked_kind: contact.status === 'blocked' ? 'contact' : null,
            request_note: null,
            updated_at: contact.created_at,
          });
        for (const [i, contact] of contacts.entries()) await save(contact, fingerprints[i]!);
        for (const { index, into } of contacts.length > 0 ? edits : []) {
          await save(into, fingerprints[index % contacts.length]!);
        }
        const rows = await store.db.query<ContactRow>(
          'SELECT * FROM contacts WHERE identity_id = $1 ORDER BY created_at, fingerprint',
          [identityId],
        );
        const all = await listContactRecordsOfSlug(store.db, workspaceId, slug, undefined);
        expect(all?.text).toBe(JSON.stringify(rows.map(contactRecord)));
        z.parse(z.array(contactSchema), JSON.parse(all!.text));
        const active = await listContactRecordsOfSlug(store.db, workspaceId, slug, 'active');
        expect(active?.text).toBe(
          JSON.stringify(rows.filter((row) => row.status === 'active').map(contactRecord)),
        );
      }),
      { numRuns: 40 },
    );
  });

  /** Writes `deliveries` for a new endpoint; answers its list as written and the records expected. */
  async function deliveryLog(
    deliveries: Omit<WebhookDeliveryRow, 'id' | 'workspace_id' | 'endpoint_id' | 'event_id'>[],
    limit: number,
  ) {
    const { id } = await newEndpoint();
    for (const delivery of deliveries) {
      const eventId = `evt_json${events++}`;
      await insertDelivery(store.db, {
        ...delivery,
        workspace_id: workspaceId,
        endpoint_id: id,
        event_id: eventId,
      });
    }
    const rows = await store.db.query<WebhookDeliveryRow>(
      'SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
      [id, limit],
    );
    const keys = Object.keys(webhookDeliverySchema.shape);
    const text = (await listNewestDeliveryRecords(store.db, workspaceId, id, limit))!.text;
    z.parse(z.array(webhookDeliverySchema), JSON.parse(text));
    return { text, expected: rows.map((row) => inContractOrder(keys, { ...row })) };
  }
  let events = 0;

  it('writes the newest deliveries as JSON.stringify writes their records, in the contract order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(deliveryArb(fc.integer({ min: 0, max: 60_000 })), { maxLength: 6 }),
        fc.integer({ min: 1, max: 8 }),
        async (deliveries, limit) => {
          const { text, expected } = await deliveryLog(deliveries, limit);
          expect(text).toBe(JSON.stringify(expected));
        },
      ),
      { numRuns: 40 },
    );
  });

  // PostgreSQL writes a double below 1e-4 with an exponent (`1e-05` where JSON.stringify writes
  // `0.00001`): other bytes, the same numbers.
  it('writes any latency the relay accepts as the same number, the members in the contract order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(deliveryArb(fc.double({ min: 0, max: 3_600_000, noNaN: true })), {
          minLength: 1,
          maxLength: 4,
        }),
        async (deliveries) => {
          const { text, expected } = await deliveryLog(deliveries, 8);
          const written = JSON.parse(text) as Record<string, unknown>[];
          expect(written).toStrictEqual(expected);
          expect(written.map(Object.keys)).toEqual(expected.map(Object.keys));
        },
      ),
      { numRuns: 40 },
    );
  });

  /** One endpoint's pending delivery, claimed as the claim function claims it: its id. */
  async function sendingDelivery(workspace: string, endpoint: string): Promise<string> {
    const eventId = `evt_json${events++}`;
    await insertDelivery(store.db, pendingDelivery(workspace, endpoint, eventId));
    const [row] = await store.db.query<{ id: string }>(
      `UPDATE webhook_deliveries SET status = 'sending', claimed_at = $2, claimed_by = 'test'
        WHERE event_id = $1 RETURNING id`,
      [eventId, Date.now()],
    );
    return row!.id;
  }

  /** Every statement that writes an endpoint row, applied to the endpoint `id` of `workspace`. */
  const endpointWriters = {
    pause: (workspace: string, id: string, at: number) =>
      setEndpointStatus(store.db, workspace, id, 'paused', at),
    resume: (workspace: string, id: string, at: number) =>
      setEndpointStatus(store.db, workspace, id, 'active', at),
    rotate: (workspace: string, id: string, at: number) =>
      rotateEndpointSecret(store.db, workspace, id, 'sealed', at + 5, at),
    remove: (workspace: string, id: string, at: number) => removeEndpoint(store.db, workspace, id, at),
    failure: async (workspace: string, id: string, at: number) => {
      const deliveryId = await sendingDelivery(workspace, id);
      const result = { deliveryId, httpStatus: 500, latencyMs: 1, excerpt: 'no' };
      await recordAttempt(store.db, { ...result, ok: false }, at);
    },
    success: async (workspace: string, id: string, at: number) => {
      const deliveryId = await sendingDelivery(workspace, id);
      await recordAttempt(store.db, { deliveryId, httpStatus: 200, latencyMs: 1, excerpt: '', ok: true }, at);
    },
    'batched success': async (workspace: string, id: string) => {
      const deliveryId = await sendingDelivery(workspace, id);
      await recordSuccesses(store.db, [{ deliveryId, httpStatus: 200, latencyMs: 1, excerpt: '' }]);
    },
    'listener stream': (_workspace: string, id: string) => setListenerStream(store.db, id, 'stream'),
    'listener seen': (_workspace: string, id: string, at: number) => touchListeners(store.db, [id], at),
    // Removes every listener of any workspace not seen since `at` (the bookkeeping above sets the mark).
    'abandoned listeners': (_workspace: string, _id: string, at: number) =>
      removeAbandonedListeners(store.db, at, at),
  };

  it('writes the live endpoints as JSON.stringify writes endpointRecord through every writer, a past rotation read as null', async () => {
    let made = 0;
    const writes = fc.array(
      fc.record({
        index: fc.nat(),
        writer: fc.constantFrom(...(Object.keys(endpointWriters) as (keyof typeof endpointWriters)[])),
        at: instant,
      }),
      { maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(endpointArb, { maxLength: 6 }),
        writes,
        instant,
        async (endpoints, edits, now) => {
          const workspace = await seedWorkspace(store.db);
          const ids = endpoints.map(() => `whk_json${made++}`);
          for (const [i, endpoint] of endpoints.entries()) {
            await insertEndpoint(store.db, {
              ...endpoint,
              id: ids[i]!,
              workspace_id: workspace,
              secret_enc: null,
              previous_secret_enc: null,
            });
          }
          for (const { index, writer, at } of ids.length > 0 ? edits : []) {
            await endpointWriters[writer](workspace, ids[index % ids.length]!, at);
          }
          const rows = await store.db.query<WebhookEndpointRow & { record_json: string; fresh: string }>(
            `SELECT *, webhook_endpoint_record_json(id, url, events, status, consecutive_failures, rotating_until,
                    created_at, updated_at) AS fresh
             FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY created_at, id`,
            [workspace],
          );
          // Every row keeps the record its columns make now (the overlap's end as stored).
          for (const row of rows) {
            expect(row.record_json).toBe(row.fresh);
            expect(row.record_json).toBe(JSON.stringify(endpointRecord(row, -Infinity)));
          }
          const live = rows.filter((row) => row.deleted_at === null);
          const expected = JSON.stringify(live.map((row) => endpointRecord(row, now)));
          const records = await listLiveEndpointRecords(store.db, workspace, now);
          expect(records.text).toBe(expected);
          z.parse(z.array(webhookEndpointSchema), JSON.parse(records.text));
          expect((await liveEndpoints(store.db, workspace, now)).text).toBe(expected);
          // A status change answers the list as changed, in the same bytes as the list read after it.
          const target = live[0];
          if (target) {
            const answered = await setEndpointStatus(store.db, workspace, target.id, 'paused', now);
            expect(answered?.text).toBe((await listLiveEndpointRecords(store.db, workspace, now)).text);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('reads a past overlap as null in the member alone, whatever the URL and filter hold, and writes a row that keeps no text', async () => {
    const workspace = await seedWorkspace(store.db);
    const past = 1_700_000_000_005;
    const now = past + 1;
    // Text that spells the member inside the strings: JSON escapes its quotes, so it must stay as it is.
    const spelled = `"rotating_until":${past},"x`;
    for (const [i, rotating] of [past, now + 1, null].entries()) {
      await insertEndpoint(store.db, {
        id: `whk_spelled${i}`,
        workspace_id: workspace,
        url: spelled,
        events: [spelled, '\\"rotating_until\\":1,'],
        status: 'active',
        consecutive_failures: 0,
        secret_enc: null,
        previous_secret_enc: null,
        rotating_until: rotating,
        created_at: 1_700_000_000_000 + i,
        updated_at: 1_700_000_000_000 + i,
        deleted_at: null,
      });
    }
    // A row written with the trigger off keeps no text: the list writes it.
    await store.db.exec('ALTER TABLE webhook_endpoints DISABLE TRIGGER webhook_endpoints_keep_record');
    try {
      await insertEndpoint(store.db, {
        id: 'whk_spelled3',
        workspace_id: workspace,
        url: spelled,
        events: [],
        status: 'paused',
        consecutive_failures: 2,
        secret_enc: null,
        previous_secret_enc: null,
        rotating_until: past,
        created_at: 1_700_000_000_003,
        updated_at: 1_700_000_000_003,
        deleted_at: null,
      });
    } finally {
      await store.db.exec('ALTER TABLE webhook_endpoints ENABLE TRIGGER webhook_endpoints_keep_record');
    }
    const rows = await store.db.query<WebhookEndpointRow & { record_json: string | null }>(
      'SELECT * FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY created_at, id',
      [workspace],
    );
    expect(rows.map((row) => row.record_json === null)).toEqual([false, false, false, true]);
    const expected = JSON.stringify(rows.map((row) => endpointRecord(row, now)));
    expect((await listLiveEndpointRecords(store.db, workspace, now)).text).toBe(expected);
    expect(expected.match(/"rotating_until":null/g)).toHaveLength(3);
  });

  it('writes a log the worker settled (logged one by one or together, abandoned) as its rows read now', async () => {
    const outcome = fc.constantFrom('success', 'batched success', 'failure', 'abandoned', 'left sending');
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            outcome,
            httpStatus: maybe(fc.integer({ min: 100, max: 599 })),
            latencyMs: maybe(fc.double({ min: 0, max: 60_000, noNaN: true })),
            excerpt: maybe(anyText),
            createdAt: instant,
          }),
          { minLength: 1, maxLength: 6 },
        ),
        async (attempts) => {
          const { id } = await newEndpoint();
          const ids: string[] = [];
          for (const attempt of attempts) {
            const eventId = `evt_json${events++}`;
            await insertDelivery(store.db, {
              ...pendingDelivery(workspaceId, id, eventId),
              created_at: attempt.createdAt,
              // Set, so that a finished row's record shows the outcome's reset of it.
              next_attempt_at: 1_700_000_000_000,
            });
            const [row] = await store.db.query<{ id: string }>(
              'SELECT id FROM webhook_deliveries WHERE event_id = $1',
              [eventId],
            );
            ids.push(row!.id);
          }
          // Claimed as the claim function claims them, long enough ago for the sweeper to take the ones left.
          const stale = 1_000;
          await store.db.query(
            `UPDATE webhook_deliveries SET status = 'sending', claimed_at = $2, claimed_by = 'test'
              WHERE endpoint_id = $1`,
            [id, stale],
          );
          const batched: Parameters<typeof recordSuccesses>[1][number][] = [];
          for (const [i, attempt] of attempts.entries()) {
            const result = {
              deliveryId: ids[i]!,
              httpStatus: attempt.httpStatus,
              latencyMs: attempt.latencyMs,
              excerpt: attempt.excerpt,
            };
            if (attempt.outcome === 'batched success') batched.push(result);
            if (attempt.outcome === 'success' || attempt.outcome === 'failure') {
              await recordAttempt(store.db, { ...result, ok: attempt.outcome === 'success' }, Date.now());
            }
          }
          await recordSuccesses(store.db, batched);
          const abandonedIds = ids.filter((_, i) => attempts[i]!.outcome === 'abandoned');
          await store.db.query(
            `UPDATE webhook_deliveries SET claimed_at = $2 WHERE endpoint_id = $1 AND NOT (id = ANY ($3))`,
            [id, stale + 10, abandonedIds],
          );
          await abandonStaleDeliveries(store.db, stale + 1);

          const rows = await store.db.query<
            WebhookDeliveryRow & { record_json: string | null; fresh: string }
          >(
            `SELECT *, ${deliveryRecordJsonSql('')} AS fresh
               FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC`,
            [id],
          );
          const keys = Object.keys(webhookDeliverySchema.shape);
          const expected = rows.map((row) => inContractOrder(keys, { ...row }));
          const text = (await listNewestDeliveryRecords(store.db, workspaceId, id, 10))!.text;
          expect(JSON.parse(text)).toStrictEqual(expected);
          // Every finished row keeps its record, the one the list would write from its columns now.
          for (const row of rows) {
            const finished = ['delivered', 'failed', 'abandoned'].includes(row.status);
            expect(row.record_json === null).toBe(!finished);
            if (row.record_json !== null) {
              expect(row.record_json).toBe(row.fresh);
              expect(JSON.parse(row.record_json)).toStrictEqual(inContractOrder(keys, { ...row }));
              expect(Object.keys(JSON.parse(row.record_json))).toEqual(keys);
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('writes a latency JSON has no number for (NaN, the infinities) as null, as JSON.stringify does', async () => {
    const { id } = await newEndpoint();
    const latencies = ['NaN', 'Infinity', '-Infinity', '2.5'];
    for (const [i, latency] of latencies.entries()) {
      await store.db.query(
        `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
           latency_ms, created_at)
         VALUES (webhook_delivery_id($3, $2), $1, $2, $3, 'integration.created', 1, 'delivered', $4::float8, $5)`,
        [workspaceId, id, `evt_odd${i}`, latency, 1_700_000_000_000 + i],
      );
    }
    const text = (await listNewestDeliveryRecords(store.db, workspaceId, id, 10))!.text;
    const written = (JSON.parse(text) as { latency_ms: number | null }[]).map((record) => record.latency_ms);
    expect(written).toEqual([2.5, null, null, null]);
    z.parse(z.array(webhookDeliverySchema), JSON.parse(text));
  });

  it('answers undefined for an unknown identity or endpoint, and an empty array for one with no rows', async () => {
    expect(await listContactRecordsOfSlug(store.db, workspaceId, 'nobody', undefined)).toBeUndefined();
    expect(await listNewestDeliveryRecords(store.db, workspaceId, 'whk_nothere', 10)).toBeUndefined();
    const other = await seedWorkspace(store.db);
    expect(await listNewestDeliveryRecords(store.db, other, endpointId, 10)).toBeUndefined();
    await addIdentity(store.db, workspaceId, 'lonely');
    expect((await listContactRecordsOfSlug(store.db, workspaceId, 'lonely', undefined))?.text).toBe('[]');
    expect((await listNewestDeliveryRecords(store.db, workspaceId, endpointId, 10))?.text).toBe('[]');
  });
});

describe('a JSON text', () => {
  it('joins values and texts in order, leaves undefined members out, and stringifies as its value', () => {
    const list = new JsonText<number[]>('[1,2]');
    const body = jsonObject<{ a: number[]; b?: string | undefined; c: string }>({
      a: list,
      b: undefined,
      c: 'x"y',
    });
    expect(body.text).toBe('{"a":[1,2],"c":"x\\"y"}');
    expect(body.text).toBe(JSON.stringify({ a: [1, 2], b: undefined, c: 'x"y' }));
    expect(JSON.stringify({ answer: body })).toBe('{"answer":{"a":[1,2],"c":"x\\"y"}}');
  });
});
