import { randomBytes } from 'node:crypto';
import { endpointAsShown } from '@svc-kit/contract';
import { describe, expect, it } from 'vitest';
import { contactRecord } from '../../src/features/contacts/record.js';
import type { Db } from '../../src/store/db.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';
import { listContactsOfSlug } from '../../src/store/queries/contacts.js';
import { listNewestDeliveries } from '../../src/store/queries/webhook-deliveries.js';
import { listLiveEndpoints } from '../../src/store/queries/webhook-endpoints.js';
import { createEmptyPostgres } from '../support/backends.js';
import { addIdentity } from '../support/identity.js';
import { seedWorkspace } from '../support/workspaces.js';

/** The migration that stops rows keeping their record's text (the tests migrate to just before it). */
const RECORDS_WRITTEN_BY_THE_SERVICE = 20;

/** Each record cut to the members its kept text had. */
const asKept = (records: object[], kept: unknown[]) =>
  records.map((record, i) =>
    Object.fromEntries(
      Object.keys(kept[i] as object).map((member) => [member, (record as Record<string, unknown>)[member]]),
    ),
  );

const backends: { name: string; open(): Promise<{ db: Db; drop(): Promise<void> }> }[] = [
  { name: 'pglite', open: async () => ({ db: await openPglite(undefined), drop: async () => {} }) },
  {
    name: 'postgres',
    open: async () => {
      const database = await createEmptyPostgres();
      return { db: await openPostgres(database.url), drop: database.drop };
    },
  },
];

/**
 * A database whose rows kept their records' texts (migrations 0018 and 0019) answers, once migrated, the
 * same records from its rows: what the database wrote and what the service now writes agree.
 */
describe.each(backends)('the lists of a database migrated off kept records, on $name', (backend) => {
  it('answers every row with the record it kept', async () => {
    const { db, drop } = await backend.open();
    try {
      const all = await loadMigrations();
      expect(all[RECORDS_WRITTEN_BY_THE_SERVICE - 1]!.name).toBe('0020_records_written_by_the_service.sql');
      await migrate(db, all.slice(0, RECORDS_WRITTEN_BY_THE_SERVICE - 1));
      const workspaceId = await seedWorkspace(db);
      const identityId = await addIdentity(db, workspaceId, 'before');
      // Rows as the schema of migration 0019 has them, written without the current queries, whose columns
      // may be a later migration's.
      const insert = async (table: string, row: Record<string, unknown>) => {
        const names = Object.keys(row);
        await db.query(
          `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
          Object.values(row),
        );
      };
      for (const [i, status] of (['active', 'blocked', 'pending_in'] as const).entries()) {
        await insert('contacts', {
          identity_id: identityId,
          fingerprint: `sha256:${randomBytes(4).toString('hex')}`,
          workspace_id: workspaceId,
          display_name: `Before "${i}"\n`,
          endpoint: `https://p${i}.example.com/peer`,
          public_key: 'k',
          card: 'c',
          card_expires_at: 0,
          status,
          blocked_kind: status === 'blocked' ? 'declined' : null,
          preset: 'default',
          permissions: ['a', 'b\\'],
          trust_flag: 'messages_only',
          petname: '',
          request_note: null,
          last_seen_at: 1_700_000_000_000,
          acceptance_unheard_since: i === 0 ? null : 1_700_000_000_001,
          created_at: 1_700_000_000_000 + i,
          updated_at: 1_700_000_000_000 + i,
        });
      }
      for (const [i, events] of [[], ['message.received']].entries()) {
        await insert('webhook_endpoints', {
          id: `whk_before${i}`,
          workspace_id: workspaceId,
          url: `https://hooks.example.com/"${i}"`,
          events,
          status: i === 1 ? 'paused' : 'active',
          consecutive_failures: i,
          secret_enc: null,
          previous_secret_enc: null,
          rotating_until: null,
          created_at: 1_700_000_000_000 + i,
          updated_at: 1_700_000_000_050 + i,
          deleted_at: null,
        });
      }
      const endpointId = 'whk_before1';
      for (const [i, status] of ['delivered', 'failed', 'abandoned'].entries()) {
        const [{ id }] = (await db.query<{ id: string }>('SELECT webhook_delivery_id($1, $2) AS id', [
          `evt_before${i}`,
          endpointId,
        ])) as [{ id: string }];
        await insert('webhook_deliveries', {
          id,
          workspace_id: workspaceId,
          endpoint_id: endpointId,
          event_id: `evt_before${i}`,
          event_type: 'integration.created',
          attempt: 1,
          status,
          http_status: 200 + i,
          latency_ms: 12.5,
          response_excerpt: `ok "${i}"`,
          next_attempt_at: null,
          created_at: 1_700_000_000_000 + i,
        });
      }
      // Finished rows kept the text the worker wrote with the 0018 function.
      await db.query(
        `UPDATE webhook_deliveries SET record_json = webhook_delivery_record_json(id, endpoint_id, event_id,
           event_type, attempt, status, http_status, latency_ms, response_excerpt, next_attempt_at, created_at)`,
      );
      const kept = async (table: string, order: string, where: string) =>
        (
          await db.query<{ record_json: string }>(
            `SELECT record_json FROM ${table} WHERE ${where} ORDER BY ${order}`,
            [workspaceId],
          )
        ).map((row) => JSON.parse(row.record_json) as unknown);
      const contactsKept = await kept('contacts', 'created_at, fingerprint', 'workspace_id = $1');
      const endpointsKept = await kept('webhook_endpoints', 'created_at, id', 'workspace_id = $1');
      const logKept = await kept('webhook_deliveries', 'created_at DESC, id DESC', 'workspace_id = $1');
      expect([contactsKept.length, endpointsKept.length, logKept.length]).toEqual([3, 2, 3]);

      expect((await migrate(db, all))[0]).toBe(RECORDS_WRITTEN_BY_THE_SERVICE);
      const now = 1_700_000_001_000;
      const contacts = (await listContactsOfSlug(db, workspaceId, 'before', undefined))!.map(contactRecord);
      const endpoints = (await listLiveEndpoints(db, workspaceId)).map((row) => endpointAsShown(row, now));
      const log = (await listNewestDeliveries(db, workspaceId, endpointId, 10))!;
      // Every member a kept record had reads the same (members added since are not this test's concern).
      expect(asKept(contacts, contactsKept)).toEqual(contactsKept);
      expect(asKept(endpoints, endpointsKept)).toEqual(endpointsKept);
      expect(asKept(log, logKept)).toEqual(logKept);
      for (const table of ['contacts', 'webhook_endpoints', 'webhook_deliveries']) {
        expect(
          await db.query(
            `SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND column_name = 'record_json'`,
            [table],
          ),
        ).toEqual([]);
      }
    } finally {
      await db.close();
      await drop();
    }
  });
});
