/**
 * The anchors the API benchmark compares the service with (served by target.ts on a port of their own, on
 * the service's database connection): a bare Fastify route with no query, and the floors, bare routes
 * running one query of the same rows or one UPDATE.
 *
 * Each floor is served a second time under `/keyed` (`/keyed/query/webhooks`), after the key lookup the service runs before a
 * handler: the service's own `resolvePrincipal` with the service's own credential cache, on the bearer key
 * the load sends. So that anchor pays exactly what authentication costs the service (on PostgreSQL one
 * prepared lookup a call; on PGlite whatever the cache leaves to the database), and a route that misses
 * issue 43's one-query floor can be shown to miss it by that cost alone, or not.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { SANDBOX_WORKSPACE_ID } from '../../src/features/sandbox/seed.js';
import { resolvePrincipal } from '../../src/http/principal.js';
import type { CredentialCache } from '../../src/store/credential-cache.js';
import type { Db } from '../../src/store/db.js';
import { CONTACT_COLUMNS } from '../../src/store/queries/contacts.js';

/** Every column of an endpoint row. */
export const ENDPOINT_COLUMNS = `id, workspace_id, url, events, status, consecutive_failures, secret_enc, previous_secret_enc,
  rotating_until, created_at, updated_at, deleted_at, listener_seen_at, listener_stream`;
const DELIVERY_COLUMNS = `id, workspace_id, endpoint_id, event_id, event_type, attempt, status, http_status,
  latency_ms, response_excerpt, next_attempt_at, created_at, claimed_at, claimed_by`;

interface Floor {
  method: HTTPMethods;
  path: string;
  run: () => Promise<object>;
}

export async function addAnchors(
  app: FastifyInstance,
  db: Db,
  credentials: CredentialCache | undefined,
  ids: { endpointId: string; toggleId: string; identityId: string },
): Promise<void> {
  const empty = { endpoints: [], enabled: true };
  app.get('/bare', async () => empty);
  // The write's floor updates a copy of the endpoints with the table's columns and indexes: one plain
  // UPDATE of such a row.
  await db.exec('CREATE TABLE bench_update_floor (LIKE webhook_endpoints INCLUDING ALL)');
  await db.query(
    `INSERT INTO bench_update_floor (${ENDPOINT_COLUMNS})
     SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1`,
    [SANDBOX_WORKSPACE_ID],
  );
  let flip = false;
  // The floors: the rows as a plain query reads them, decoded and written as JSON here.
  const floors: Floor[] = [
    {
      method: 'GET',
      path: '/query/webhooks',
      run: async () => ({
        endpoints: await db.query(
          `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL
            ORDER BY created_at, id`,
          [SANDBOX_WORKSPACE_ID],
        ),
      }),
    },
    {
      method: 'GET',
      path: '/query/deliveries',
      run: async () => ({
        deliveries: await db.query(
          `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE workspace_id = $1 AND endpoint_id = $2
            ORDER BY created_at DESC, id DESC LIMIT 100`,
          [SANDBOX_WORKSPACE_ID, ids.endpointId],
        ),
      }),
    },
    {
      method: 'GET',
      path: '/query/contacts',
      run: async () => ({
        contacts: await db.query(
          `SELECT ${CONTACT_COLUMNS.join(', ')} FROM contacts WHERE identity_id = $1 ORDER BY created_at, fingerprint`,
          [ids.identityId],
        ),
      }),
    },
    {
      method: 'PATCH',
      path: '/update',
      run: async () => {
        flip = !flip;
        const rows = await db.query(
          'UPDATE bench_update_floor SET status = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING id',
          [SANDBOX_WORKSPACE_ID, ids.toggleId, flip ? 'paused' : 'active', Date.now()],
        );
        return { updated: rows.length };
      },
    },
  ];
  for (const floor of floors) {
    app.route({ method: floor.method, url: floor.path, handler: floor.run });
    app.route({
      method: floor.method,
      url: `/keyed${floor.path}`,
      handler: async (request, reply) => {
        // A refused key answers 401, which the load counts as a failure: the anchor never skips the lookup.
        if (!(await resolvePrincipal(db, request, Date.now(), credentials))) return reply.code(401).send({});
        return floor.run();
      },
    });
  }
  // How the service's key lookups were answered so far (PGlite holds keys in memory; PostgreSQL never).
  app.get('/key-lookups', async () => credentials?.stats() ?? { hits: 0, misses: 0 });
}
