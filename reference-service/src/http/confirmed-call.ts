import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../domain/errors.js';
import type { Queryable } from '../store/db.js';
import { KeyChanged, keyChecked } from '../store/key-checked.js';
import { type Authorized, authorize, type Requirements } from './policy.js';

/**
 * Calls whose first action is a statement of the database (no outbound call, no write before it, no write
 * in it unless the check guards it): on PostgreSQL a key seen before authorizes them from its held copy,
 * and that statement confirms it.
 */
const CONFIRMED_BY_FIRST_STATEMENT: ReadonlySet<string> = new Set([
  'listWebhooks',
  'listWebhookDeliveries',
  'listContacts',
  // Its one statement carries the check in its UPDATE (store/queries/webhook-endpoints.ts): a key found
  // changed there has written nothing.
  'setWebhookStatus',
  // POST /sandbox/events (sandbox/trigger.ts): the identities are read before the event is written.
  'sandboxTrigger',
]);

/**
 * Authorizes the caller and runs `call`. On PostgreSQL, a call of CONFIRMED_BY_FIRST_STATEMENT by a key
 * seen before is authorized from the copy held by this instance, and its connection (store/key-checked.ts)
 * confirms that the key, its member and its workspace still read the same in the call's first statement:
 * one round trip instead of two. Nothing leaves before the confirmation: a call that ends, answers or
 * fails without a statement is confirmed on its own first. When the copy is found changed (revoked,
 * permissions or workspace changed, on any instance), it is dropped and the call runs again from a fresh
 * read, so the answer is always the one a fresh read gives. A refusal from a held copy is re-decided from
 * a fresh read too.
 */
export async function confirmedCall<T>(
  ctx: ServiceContext,
  request: FastifyRequest,
  operationId: string,
  requirements: Requirements,
  now: number,
  call: (authorized: Authorized, db: Queryable) => Promise<T>,
): Promise<T> {
  const context = { now, publicOrigin: ctx.publicAddress.origin, credentials: ctx.credentials };
  const fresh = async () => call(await authorize(ctx.db, request, requirements, context), ctx.db);
  if (!ctx.credentials?.unconfirmed || !CONFIRMED_BY_FIRST_STATEMENT.has(operationId)) return fresh();
  // Nothing on the held path may run twice: only reads, calls whose writes follow their first read, and
  // writes guarded by the check itself (a failed check wrote nothing).

  let authorized: Authorized;
  try {
    authorized = await authorize(ctx.db, request, requirements, { ...context, unconfirmed: true });
  } catch (error) {
    // 401 comes from a fresh read already (a held copy is used only when it accepts the secret).
    if (error instanceof ServiceError && error.code !== 'unauthenticated') return fresh();
    throw error;
  }
  const principal = authorized.principal;
  if (principal.kind !== 'key' || principal.unconfirmedVersion === undefined) {
    return call(authorized, ctx.db);
  }
  const db = keyChecked(ctx.db, principal.keyId, principal.unconfirmedVersion);
  try {
    const result = await call(authorized, db);
    await db.confirm();
    return result;
  } catch (error) {
    if (!db.confirmed && !(error instanceof KeyChanged)) {
      // The call failed before any statement confirmed the key: its failure stands only if the key does.
      await db.confirm().catch((confirmError: unknown) => {
        if (!(confirmError instanceof KeyChanged)) throw confirmError;
      });
    }
    if (db.confirmed) throw error;
    ctx.credentials.forget(principal.keyId);
    if (db.mayHaveWritten) {
      // Its write may have happened: the caller is decided afresh (a refusal stands), the call not run again.
      await authorize(ctx.db, request, requirements, context);
      throw error;
    }
    return fresh();
  }
}
