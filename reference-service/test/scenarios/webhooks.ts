import {
  FILTERED_LOG_READS,
  MAX_ENDPOINTS_PER_HOST,
  MAX_WEBHOOK_ENDPOINTS,
  type WebhookDelivery,
} from '@svc-kit/contract';
import { expect, it } from 'vitest';
import { expectApiError, type RawAnswer, rawCall } from './expect.js';
import type { Target } from './target.js';

const WEBHOOKS = '/v1/workspace/webhooks';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The webhook endpoint lifecycle (spec 3.1 and 4.1) and its main refusals. */
export function webhookScenarios(target: () => Target): void {
  it('lifecycle: create, list, rotate twice, pause, resume, read the log, delete', async () => {
    const [owner] = await target().pair();
    const session = target().sessionClient(owner);
    const before = await owner.api.webhooks.list();
    expect(before.endpoints).toEqual([]);
    expect(before.events).toContain('message.received');

    const created = await session.webhooks.create({
      url: target().webhookUrl('/lifecycle'),
      events: ['contact.approved'],
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.endpoint).toMatchObject({
      url: target().webhookUrl('/lifecycle'),
      events: ['contact.approved'],
      status: 'active',
      consecutive_failures: 0,
      rotating_until: null,
    });
    expect(created.endpoint.id).toMatch(/^whk_[0-9a-f]{24}$/);
    const listed = await owner.api.webhooks.list();
    expect(listed.endpoints).toEqual([created.endpoint]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    const started = Date.now();
    const rotated = await owner.api.webhooks.rotateSecret(created.endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previous_accepted_until).toBeGreaterThanOrEqual(started + DAY_MS);
    expect(rotated.previous_accepted_until).toBeLessThanOrEqual(Date.now() + DAY_MS);
    // A second rotation within 24 hours keeps the original secret until the first overlap ends.
    const again = await owner.api.webhooks.rotateSecret(created.endpoint.id);
    expect(again.previous_accepted_until).toBe(rotated.previous_accepted_until);
    expect((await owner.api.webhooks.list()).endpoints[0]?.rotating_until).toBe(
      rotated.previous_accepted_until,
    );

    const paused = await owner.api.webhooks.setStatus(created.endpoint.id, { status: 'paused' });
    expect(paused.endpoints.map((endpoint) => endpoint.status)).toEqual(['paused']);
    const resumed = await owner.api.webhooks.setStatus(created.endpoint.id, { status: 'active' });
    expect(resumed.endpoints[0]).toMatchObject({ status: 'active', consecutive_failures: 0 });

    expect(await owner.api.webhooks.listDeliveries(created.endpoint.id, { limit: 10 })).toEqual({
      deliveries: [],
    });
    expect(await owner.api.webhooks.delete(created.endpoint.id)).toBeUndefined();
    expect((await owner.api.webhooks.list()).endpoints).toEqual([]);
    // The log of a removed endpoint stays readable; anything else on it is 404.
    expect(await owner.api.webhooks.listDeliveries(created.endpoint.id, { limit: 10 })).toEqual({
      deliveries: [],
    });
    await expectApiError(owner.api.webhooks.rotateSecret(created.endpoint.id), 404, 'not_found');
    await expectApiError(owner.api.webhooks.delete(created.endpoint.id), 404, 'not_found');
  });

  it('refusals: a key cannot create, URL and filter rules, bodies where none is taken, unknown ids', async () => {
    const [owner] = await target().pair();
    const session = target().sessionClient(owner);
    await expectApiError(
      owner.api.webhooks.create({ url: target().webhookUrl('/k') }),
      403,
      'step_up_required',
    );
    for (const url of [
      'http://hooks.example.com/plain',
      'https://93.184.215.14/ip',
      'https://printer.local/hook',
      'https://intranet/hook',
      'https://user:pw@hooks.example.com/creds',
    ]) {
      await expectApiError(session.webhooks.create({ url }), 400, 'invalid_request');
    }
    // A key is refused before its arguments are read.
    const byKey = await rawCall(target(), owner, 'POST', WEBHOOKS, {
      body: { url: 'not checked', events: ['x'] },
    });
    expect(byKey.status).toBe(403);
    expect(byKey.body).toMatchObject({ error: { code: 'step_up_required' } });
    const { endpoint } = await session.webhooks.create({ url: target().webhookUrl('/refusals') });
    const rotateWithBody = await rawCall(target(), owner, 'POST', `${WEBHOOKS}/${endpoint.id}/secret`, {
      body: { force: true },
    });
    expect(rotateWithBody.status).toBe(400);
    expect(rotateWithBody.body).toMatchObject({ error: { code: 'invalid_request' } });
    const deleteWithBody = await rawCall(target(), owner, 'DELETE', `${WEBHOOKS}/${endpoint.id}`, {
      body: { force: true },
    });
    expect(deleteWithBody.status).toBe(400);
    const badLimit = await rawCall(target(), owner, 'GET', `${WEBHOOKS}/${endpoint.id}/deliveries?limit=1e2`);
    expect(badLimit.status).toBe(400);
    for (const filter of ['status=lost', 'event_type=contact.nonesuch', 'event_id=', 'colour=red']) {
      const badFilter = await rawCall(
        target(),
        owner,
        'GET',
        `${WEBHOOKS}/${endpoint.id}/deliveries?limit=5&${filter}`,
      );
      expect(badFilter.status, filter).toBe(400);
    }
    await expectApiError(
      owner.api.webhooks.setStatus('whk_000000000000000000000000', { status: 'paused' }),
      404,
      'not_found',
    );
    await expectApiError(
      owner.api.webhooks.listDeliveries('whk_000000000000000000000000', { limit: 5 }),
      404,
      'not_found',
    );
  });

  it('filtered log reads: past the workspace’s budget 429 with Retry-After; plain reads and others go on', async () => {
    const [alice, bob] = await target().pair();
    const create = (who: typeof alice, path: string) =>
      target()
        .sessionClient(who)
        .webhooks.create({ url: target().webhookUrl(path) });
    const { endpoint: mine } = await create(alice, '/read-budget');
    const { endpoint: theirs } = await create(bob, '/read-budget');
    const log = (who: typeof alice, id: string, query: string) =>
      rawCall(target(), who, 'GET', `${WEBHOOKS}/${id}/deliveries?limit=5${query}`);
    // Asked without pause, far faster than the budget refills: the burst goes through, then a 429.
    const answers: RawAnswer[] = [];
    for (let i = 0; i < 4 * FILTERED_LOG_READS.capacity && answers.at(-1)?.status !== 429; i++) {
      answers.push(
        await log(alice, mine.id, i % 2 === 0 ? '&status=failed' : '&event_type=contact.approved'),
      );
    }
    const limited = answers.at(-1)!;
    expect(limited.status).toBe(429);
    expect(answers.length).toBeGreaterThan(FILTERED_LOG_READS.capacity);
    const error = (limited.body as { error: { code: string; retry_after: number } }).error;
    expect(error).toMatchObject({
      code: 'rate_limited',
      retry_after: Math.ceil(1 / FILTERED_LOG_READS.perMs / 1000),
    });
    expect(limited.headers.get('retry-after')).toBe(String(error.retry_after));
    // Reads that do not go through the window, and another workspace's filtered reads, are not limited.
    expect((await log(alice, mine.id, '')).status).toBe(200);
    expect((await log(alice, mine.id, '&event_id=evt_unknown&status=failed')).status).toBe(200);
    expect((await log(bob, theirs.id, '&status=failed')).status).toBe(200);
    // A refused read spends nothing: after more of them, the wait the 429 named is enough.
    for (let i = 0; i < 5; i++) await log(alice, mine.id, '&status=failed');
    target().advanceClock(error.retry_after * 1000);
    expect((await log(alice, mine.id, '&status=failed')).status).toBe(200);
  });

  it(`caps: ${MAX_WEBHOOK_ENDPOINTS} endpoints per workspace, then 403 until one is deleted`, async () => {
    const [owner] = await target().pair();
    const session = target().sessionClient(owner);
    // Counted from what the workspace holds already, so the scenario does not depend on a fresh one.
    const existing = (await owner.api.webhooks.list()).endpoints.length;
    const ids: string[] = [];
    for (let i = existing; i < MAX_WEBHOOK_ENDPOINTS; i++) {
      ids.push((await session.webhooks.create({ url: target().webhookUrl('/cap', `cap-${i}`) })).endpoint.id);
    }
    await expectApiError(
      session.webhooks.create({ url: target().webhookUrl('/cap', 'cap-over') }),
      403,
      'forbidden',
    );
    await owner.api.webhooks.delete(ids.pop()!);
    ids.push((await session.webhooks.create({ url: target().webhookUrl('/cap', 'cap-again') })).endpoint.id);
    // Room for the scenarios after this one.
    for (const id of ids) await owner.api.webhooks.delete(id);
  });

  it(`caps: ${MAX_ENDPOINTS_PER_HOST} endpoints per host, then 403 until one is deleted`, async () => {
    const [owner] = await target().pair();
    const session = target().sessionClient(owner);
    const ids: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS_PER_HOST; i++) {
      ids.push(
        (await session.webhooks.create({ url: target().webhookUrl(`/host/${i}`, 'one') })).endpoint.id,
      );
    }
    await expectApiError(
      session.webhooks.create({ url: target().webhookUrl('/host/over', 'one') }),
      403,
      'forbidden',
    );
    ids.push((await session.webhooks.create({ url: target().webhookUrl('/host/over', 'two') })).endpoint.id);
    await owner.api.webhooks.delete(ids.shift()!);
    ids.push((await session.webhooks.create({ url: target().webhookUrl('/host/again', 'one') })).endpoint.id);
    for (const id of ids) await owner.api.webhooks.delete(id);
  });

  it('a delivery with no answer (refused connection, timeout): latency_ms and response_excerpt are null', async () => {
    const [owner] = await target().pair();
    const session = target().sessionClient(owner);
    const receivers = await target().unansweredReceivers(owner);
    const events = ['integration.created' as const];
    const refused = await session.webhooks.create({ url: receivers.refused, events });
    const silent = await session.webhooks.create({ url: receivers.silent, events });
    // Any real change records an event; creating an integration is one every target has.
    await owner.api.integrations.create(owner.slug, { catalogue: target().catalogueEntry });
    const firstAttempt = async (endpointId: string): Promise<WebhookDelivery | undefined> => {
      const { deliveries } = await owner.api.webhooks.listDeliveries(endpointId, { limit: 10 });
      return deliveries.find((row) => row.attempt === 1);
    };
    for (const endpoint of [refused.endpoint, silent.endpoint]) {
      let row: WebhookDelivery | undefined;
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        row = await firstAttempt(endpoint.id);
        if (row && row.status !== 'pending' && row.status !== 'sending') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // No answer came: there is no time to an answer and no endpoint text (spec 3.1); the reason is logged.
      expect(row).toMatchObject({
        status: 'failed',
        http_status: null,
        latency_ms: null,
        response_excerpt: null,
        event_type: 'integration.created',
      });
      expect(row?.id).toMatch(/^dlv_[0-9a-f]{24}$/);
    }
  });
}
