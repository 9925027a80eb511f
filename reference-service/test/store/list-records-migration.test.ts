import { randomBytes } from 'node:crypto';
import { webhookDeliverySchema } from '@svc-kit/contract';
import { describe, expect, it } from 'vitest';
import { contactRecord } from '../../src/features/contacts/record.js';
import { endpointRecord } from '../../src/features/webhooks/records.js';
import type { Db } from '../../src/store/db.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';
import { type ContactRow, listContactRecordsOfSlug, saveContact } from '../../src/store/queries/contacts.js';
import { listNewestDeliveryRecords } from '../../src/store/queries/webhook-deliveries.js';
import {
  insertEndpoint,
  listLiveEndpointRecords,
  type WebhookEndpointRow,
} from '../../src/store/queries/webhook-endpoints.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { createEmptyPostgres } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { addIdentity } from '../support/identity.js';
import { seedWorkspace } from '../support/workspaces.js';

/** The migration that made rows keep their record (its number: the tests below migrate to just before it). */
const KEPT_RECORDS = 18;

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
 * A database that held contacts and a delivery log before migration 0018: its contacts get their record
 * then, the log is left to the list, and both lists answer what they answered before.
 */
describe.each(backends)('the lists of a database migrated to kept records, on $name', (backend) => {
  it('answers the rows written before the migration as it did, the contacts now read from their records', async () => {
    const { db, drop } = await backend.open();
    try {
      const all = await loadMigrations();
      expect(all[KEPT_RECORDS - 1]!.name).toBe('0018_list_records_kept.sql');
      await migrate(db, all.slice(0, KEPT_RECORDS - 1));
      const workspaceId = await seedWorkspace(db);
      const identityId = await addIdentity(db, workspaceId, 'before');
      for (const [i, status] of (['active', 'blocked', 'pending_in'] as const).entries()) {
        await saveContact(db, {
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
      const { id: endpointId } = await seedActiveEndpoint(
        db,
        createSecretBox(randomBytes(32)),
        workspaceId,
        'https://hooks.example.com/',
      );
      for (const [i, status] of ['delivered', 'failed', 'sending', 'abandoned'].entries()) {
        await db.query(
          `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
             http_status, latency_ms, response_excerpt, created_at)
           VALUES (webhook_delivery_id($3, $2), $1, $2, $3, 'integration.created', 1, $4, 200, 12.5, 'ok', $5)`,
          [workspaceId, endpointId, `evt_before${i}`, status, 1_700_000_000_000 + i],
        );
      }
      const contactsBefore = await listContactRecordsOfSlugBefore(db, workspaceId, identityId);
      const logBefore = await db.query<Record<string, unknown>>(
        `SELECT ${Object.keys(webhookDeliverySchema.shape).join(', ')} FROM webhook_deliveries
          WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC`,
        [endpointId],
      );

      expect(await migrate(db, all.slice(0, KEPT_RECORDS))).toEqual([KEPT_RECORDS]);
      const kept = await db.query<{ record_json: string | null }>(
        'SELECT record_json FROM contacts WHERE identity_id = $1',
        [identityId],
      );
      expect(kept.map((row) => row.record_json === null)).toEqual([false, false, false]);
      expect((await listContactRecordsOfSlug(db, workspaceId, 'before', undefined))?.text).toBe(
        contactsBefore,
      );
      // The log's rows keep no record (the migration does not rewrite a long table); the list writes them.
      expect(await db.query('SELECT 1 FROM webhook_deliveries WHERE record_json IS NOT NULL')).toEqual([]);
      const log = (await listNewestDeliveryRecords(db, workspaceId, endpointId, 10))!.text;
      expect(log).toBe(JSON.stringify(logBefore));
    } finally {
      await db.close();
      await drop();
    }
  });
});

/** The migration that made endpoints keep their record. */
const KEPT_ENDPOINT_RECORDS = 19;

describe.each(backends)('the endpoints of a database migrated to kept records, on $name', (backend) => {
  it('answers the endpoints written before the migration as it did, each now keeping its record', async () => {
    const { db, drop } = await backend.open();
    try {
      const all = await loadMigrations();
      expect(all[KEPT_ENDPOINT_RECORDS - 1]!.name).toBe('0019_endpoint_records_kept.sql');
      await migrate(db, all.slice(0, KEPT_ENDPOINT_RECORDS - 1));
      const workspaceId = await seedWorkspace(db);
      const now = 1_700_000_000_100;
      // No rotation, one under way, one over, and a removed endpoint.
      for (const [i, rotatingUntil] of [null, now + 1, now - 1, null].entries()) {
        await insertEndpoint(db, {
          id: `whk_before${i}`,
          workspace_id: workspaceId,
          url: `https://hooks.example.com/"${i}"`,
          events: i === 1 ? ['message.received'] : [],
          status: i === 2 ? 'paused' : 'active',
          consecutive_failures: i,
          secret_enc: null,
          previous_secret_enc: null,
          rotating_until: rotatingUntil,
          created_at: 1_700_000_000_000 + i,
          updated_at: 1_700_000_000_050 + i,
          deleted_at: i === 3 ? now : null,
        });
      }
      const rows = await db.query<WebhookEndpointRow>(
        'SELECT * FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at, id',
        [workspaceId],
      );
      const before = JSON.stringify(rows.map((row) => endpointRecord(row, now)));

      expect(await migrate(db, all)).toEqual([KEPT_ENDPOINT_RECORDS]);
      // Each row keeps the text its columns make (the overlap's end as stored, past or not).
      const kept = await db.query<WebhookEndpointRow & { record_json: string | null }>(
        'SELECT * FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY id',
        [workspaceId],
      );
      expect(kept.map((row) => row.record_json)).toEqual(
        kept.map((row) => JSON.stringify(endpointRecord(row, -Infinity))),
      );
      expect((await listLiveEndpointRecords(db, workspaceId, now)).text).toBe(before);
    } finally {
      await db.close();
      await drop();
    }
  });
});

/** The contacts list as the service wrote it before migration 0018: JSON.stringify of the records. */
async function listContactRecordsOfSlugBefore(db: Db, workspaceId: string, identityId: string) {
  const rows = await db.query<ContactRow>(
    'SELECT * FROM contacts WHERE workspace_id = $1 AND identity_id = $2 ORDER BY created_at, fingerprint',
    [workspaceId, identityId],
  );
  return JSON.stringify(rows.map(contactRecord));
}
