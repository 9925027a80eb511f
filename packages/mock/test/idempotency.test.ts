import { describe, expect, test } from 'vitest';
import { BOB, CAROL, expectError, FIXTURE, raw, SLUG, useSandbox } from './support.js';

let now = 1_700_000_000_000;
const sandbox = useSandbox({ data: FIXTURE, now: () => now });
const bob = { slug: SLUG, fingerprint: BOB };

function approve(key: string, body: unknown = { preset: 'close' }, fingerprint = BOB) {
  return raw('approveContact', {
    params: { slug: SLUG, fingerprint },
    body,
    headers: { 'idempotency-key': key },
  });
}

describe('Idempotency-Key', () => {
  test('the same key with the same arguments replays the first answer', async () => {
    const first = await approve('k1');
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    // Without the key a second approve would find no request any more; with it, the first answer comes back.
    const again = await approve('k1');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(firstBody);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    await expectError(
      await raw('approveContact', { params: bob, body: { preset: 'close' } }),
      404,
      'not_found',
    );
  });

  test('arguments are compared after defaults: {} and { preset: "basic" } are the same', async () => {
    expect((await approve('k2', {})).status).toBe(200);
    const again = await approve('k2', { preset: 'basic' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  test('the same key with different arguments is 422 idempotency_mismatch', async () => {
    expect((await approve('k3')).status).toBe(200);
    await expectError(await approve('k3', { preset: 'muted' }), 422, 'idempotency_mismatch');
    await expectError(await approve('k3', { preset: 'close' }, CAROL), 422, 'idempotency_mismatch');
    await expectError(
      await raw('rejectContact', { params: bob, headers: { 'idempotency-key': 'k3' } }),
      422,
      'idempotency_mismatch',
    );
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === CAROL)?.status).toBe('pending_in');
  });

  test('a final refusal is the first answer: replayed for the same arguments, 422 for others', async () => {
    const ghost = 'sha256:'.padEnd(71, '0');
    await expectError(await approve('k4', { preset: 'close' }, ghost), 404, 'not_found');
    sandbox.seed({
      identities: { [SLUG]: { contacts: [{ fingerprint: ghost, display_name: 'G', status: 'pending_in' }] } },
    });
    const again = await approve('k4', { preset: 'close' }, ghost);
    await expectError(again, 404, 'not_found');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await expectError(await approve('k4', { preset: 'muted' }, ghost), 422, 'idempotency_mismatch');
    expect((await approve('k4b', { preset: 'close' }, ghost)).status).toBe(200);
  });

  test('a 429 or a 5xx leaves the key free', async () => {
    sandbox.inject('approveContact', 'service_unavailable', { times: 1 });
    expect((await approve('k4c')).status).toBe(503);
    expect((await approve('k4c')).status).toBe(200);
  });

  test('a key is remembered for 24 hours', async () => {
    expect((await approve('k5')).status).toBe(200);
    now += 24 * 60 * 60 * 1000 - 1;
    await expectError(await approve('k5', { preset: 'muted' }, CAROL), 422, 'idempotency_mismatch');
    now += 1;
    expect((await approve('k5', { preset: 'muted' }, CAROL)).status).toBe(200);
  });

  test('operations that are not idempotent ignore the header', async () => {
    const headers = { 'idempotency-key': 'k6' };
    const params = { slug: SLUG, fingerprint: BOB };
    expect((await raw('setPetname', { params, headers, body: { petname: 'one' } })).status).toBe(200);
    const second = await raw('setPetname', { params, headers, body: { petname: 'two' } });
    expect(second.status).toBe(200);
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === BOB)?.petname).toBe('two');
  });

  test('a key longer than 255 characters is refused', async () => {
    await expectError(await approve('k'.repeat(256)), 400, 'invalid_request');
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === BOB)?.status).toBe('pending_in');
  });

  test('reset forgets keys', async () => {
    expect((await approve('k7')).status).toBe(200);
    sandbox.reset();
    expect((await approve('k7', { preset: 'muted' })).status).toBe(200);
  });
});
