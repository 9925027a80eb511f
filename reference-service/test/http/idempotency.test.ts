import { defineOperation, type Operation } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The contract's operations are written with zod/mini; a test-only one is too.
import * as z from 'zod/mini';
import { ServiceError } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { OperationHandler } from '../../src/http/operations.js';
import { insertIdentity, listIdentities } from '../../src/store/queries/identities.js';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, expectRefusal, startTestService, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

/**
 * A test-only operation flagged idempotent, registered through the same table mechanism as the contract's
 * operations. Each run that is not a replay creates one identity, so runs can be counted in the store.
 */
const testCreate = defineOperation({
  operationId: 'testIdempotentCreate',
  group: 'contacts',
  method: 'POST',
  path: '/v1/test/identities/{slug}',
  pathParams: z.strictObject({ slug: z.string().check(z.minLength(1)) }),
  query: null,
  body: z.strictObject({ note: z.string().check(z.maxLength(20)), fail: z._default(z.boolean(), false) }),
  success: { status: 201, schema: z.strictObject({ slug: z.string(), id: z.string(), note: z.string() }) },
  errors: [400, 401, 403, 404, 422],
  permission: 'service:contacts:manage',
  action: 'contact:write',
  flags: { suspended: true, idempotent: true, stepUp: false },
  summary: 'test only',
});

const handler: OperationHandler<typeof testCreate> = async ({ db, workspace, params, body, now }) => {
  const id = newId('idn');
  await insertIdentity(db, { id, workspace_id: workspace.id, slug: `${params.slug}-${id}`, created_at: now });
  // A refusal after a write: the transaction rolls back, so nothing of the run is kept. A final refusal
  // (404) is the key's first answer; a "later" one (503, the note says so) leaves the key free.
  if (body.fail) {
    throw body.note === 'later'
      ? new ServiceError('service_unavailable', 'asked to fail for now')
      : new ServiceError('not_found', 'asked to fail');
  }
  return { status: 201, body: { slug: params.slug, id, note: body.note } };
};

describe.each(BACKENDS)('Idempotency-Key on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(store, {
      extra: {
        extraOperations: { testIdempotentCreate: testCreate as Operation },
        extraHandlers: {
          testIdempotentCreate: { transaction: 'none', run: handler as OperationHandler<Operation> },
        },
      },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  const post = (key: string, slug: string, body: unknown, idempotencyKey?: string) =>
    call(service, 'POST', `/v1/test/identities/${slug}`, {
      auth: { key },
      body,
      headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
    });

  it('replays the first answer for a repeat and runs the operation once', async () => {
    const tenant = await createTenant(service.ctx);
    const first = await post(tenant.key, 'a', { note: 'hi' }, 'k1');
    expect(first.status).toBe(201);
    const again = await post(tenant.key, 'a', { note: 'hi' }, 'k1');
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // Key order in the body does not make it a different request.
    const reordered = await call(service, 'POST', '/v1/test/identities/a', {
      auth: { key: tenant.key },
      rawBody: '{"fail":false,"note":"hi"}',
      headers: { 'idempotency-key': 'k1' },
    });
    expect(reordered.body).toEqual(first.body);
    expect(await listIdentities(store.db, tenant.workspaceId)).toHaveLength(1);
  });

  it('runs every call without a key', async () => {
    const tenant = await createTenant(service.ctx);
    await post(tenant.key, 'a', { note: 'x' });
    await post(tenant.key, 'a', { note: 'x' });
    expect(await listIdentities(store.db, tenant.workspaceId)).toHaveLength(2);
  });

  it('refuses the same key with different arguments with 422 idempotency_mismatch', async () => {
    const tenant = await createTenant(service.ctx);
    expect((await post(tenant.key, 'a', { note: 'one' }, 'k')).status).toBe(201);
    expectRefusal(await post(tenant.key, 'a', { note: 'two' }, 'k'), 422, 'idempotency_mismatch');
    expectRefusal(await post(tenant.key, 'b', { note: 'one' }, 'k'), 422, 'idempotency_mismatch');
    expect(await listIdentities(store.db, tenant.workspaceId)).toHaveLength(1);
  });

  it('scopes keys to the workspace', async () => {
    const one = await createTenant(service.ctx);
    const two = await createTenant(service.ctx);
    expect((await post(one.key, 'a', { note: 'one' }, 'shared')).status).toBe(201);
    expect((await post(two.key, 'a', { note: 'two' }, 'shared')).status).toBe(201);
    expect(await listIdentities(store.db, two.workspaceId)).toHaveLength(1);
  });

  it('runs concurrent repeats once and gives all of them the same answer', async () => {
    const tenant = await createTenant(service.ctx);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => post(tenant.key, 'c', { note: 'race' }, 'concurrent')),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(await listIdentities(store.db, tenant.workspaceId)).toHaveLength(1);
  });

  it('forgets a key after 24 hours', async () => {
    const tenant = await createTenant(service.ctx);
    const first = await post(tenant.key, 'a', { note: 'old' }, 'aging');
    await store.db.query('UPDATE idempotency_keys SET created_at = $1 WHERE workspace_id = $2', [
      Date.now() - 24 * 3600 * 1000 - 1,
      tenant.workspaceId,
    ]);
    const later = await post(tenant.key, 'a', { note: 'new' }, 'aging');
    expect(later.status).toBe(201);
    expect(later.body).not.toEqual(first.body);
    expect(await listIdentities(store.db, tenant.workspaceId)).toHaveLength(2);
  });

  it('keeps nothing of a refused run, but a final refusal is the first answer (spec part 4)', async () => {
    const tenant = await createTenant(service.ctx);
    const first = await post(tenant.key, 'a', { note: 'f', fail: true }, 'retry');
    expectRefusal(first, 404, 'not_found');
    expect(await listIdentities(store.db, tenant.workspaceId)).toHaveLength(0);
    const again = await post(tenant.key, 'a', { note: 'f', fail: true }, 'retry');
    expectRefusal(again, 404, 'not_found');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The repeat's own request id, not the first call's.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expectRefusal(await post(tenant.key, 'a', { note: 'ok' }, 'retry'), 422, 'idempotency_mismatch');
    expect(await listIdentities(store.db, tenant.workspaceId)).toHaveLength(0);
  });

  it('leaves the key free after a refusal that says "later" (503)', async () => {
    const tenant = await createTenant(service.ctx);
    expectRefusal(
      await post(tenant.key, 'a', { note: 'later', fail: true }, 'soon'),
      503,
      'service_unavailable',
    );
    expect((await post(tenant.key, 'a', { note: 'later' }, 'soon')).status).toBe(201);
  });

  it('refuses an empty or over-long key, and validates before claiming the key', async () => {
    const tenant = await createTenant(service.ctx);
    expectRefusal(await post(tenant.key, 'a', { note: 'x' }, 'k'.repeat(256)), 400, 'invalid_request');
    expectRefusal(await post(tenant.key, 'a', { note: 'x'.repeat(21) }, 'v'), 400, 'invalid_request');
    expect((await post(tenant.key, 'a', { note: 'x' }, 'v')).status).toBe(201);
  });
});
