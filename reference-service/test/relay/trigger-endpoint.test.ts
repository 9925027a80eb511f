// `svc-webhooks trigger --endpoint <id>` against the real service: the built CLI as a child process, the
// service on a real socket with its delivery worker, and real Express apps verifying with the SDK.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeliveryTenant,
  createEndpoint,
  type DeliveringService,
  deliveries,
  eventually,
  type Receiver,
  startDeliveringService,
  startExpressReceiver,
} from '../delivery/support.js';
import { BACKENDS } from '../support/backends.js';
import type { Tenant } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { cliOnce } from './support.js';

describe.each(BACKENDS)('svc-webhooks trigger --endpoint on $name', (backend) => {
  const store = useStore(backend);
  let service: DeliveringService;
  let tenant: Tenant & { slug: string };
  const apps: Receiver[] = [];
  const ids = { chosen: '', other: '', filtered: '', foreign: '' };
  const env = () => ({ SVC_API_KEY: tenant.key, SVC_BASE_URL: service.baseUrl });

  beforeAll(async () => {
    service = await startDeliveringService(store);
    tenant = await createDeliveryTenant(service);
    const stranger = await createDeliveryTenant(service);
    for (const name of ['chosen', 'other', 'filtered'] as const) {
      const app = await startExpressReceiver();
      apps.push(app);
      const events = name === 'filtered' ? ['contact.approved'] : [];
      const endpoint = await createEndpoint(service, tenant, app.url, events);
      app.setSecret(endpoint.secret);
      ids[name] = endpoint.id;
    }
    // Another workspace's endpoint, at an app of its own that never gets an event of this tenant.
    const foreign = await startExpressReceiver();
    apps.push(foreign);
    ids.foreign = (await createEndpoint(service, stranger, foreign.url)).id;
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all(apps.map((app) => app.close()));
  });

  /** Runs `trigger`; answers the exit code, the event id it printed (if any) and stderr. */
  async function trigger(...args: string[]) {
    const run = await cliOnce(['trigger', ...args], env());
    const eventId = /^(evt_[0-9a-f]+)\s/.exec(run.stdout)?.[1];
    return { ...run, eventId };
  }
  /** The endpoints of the tenant with a delivery row for the event (rows are written with the event). */
  async function receivers(eventId: string): Promise<string[]> {
    const found: string[] = [];
    for (const id of [ids.chosen, ids.other, ids.filtered]) {
      if ((await deliveries(service, tenant, id)).some((row) => row.event_id === eventId)) found.push(id);
    }
    return found.sort();
  }

  it('sends the event to that endpoint alone, which verifies and receives it', async () => {
    const run = await trigger('message.received', '--endpoint', ids.chosen, '--identity', tenant.slug);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^evt_[0-9a-f]+  message\\.received  \\(identity ${tenant.slug}\\)`),
    );
    expect(await receivers(run.eventId!)).toEqual([ids.chosen]);
    const [chosenApp, otherApp] = apps;
    await eventually(
      () => chosenApp!.received.map((received) => received.eventId),
      (received) => received.includes(run.eventId!),
    );
    expect(otherApp!.received.map((received) => received.eventId)).not.toContain(run.eventId);

    // Without --endpoint, every endpoint whose filter takes the type gets it.
    const all = await trigger('message.received');
    expect(all.code).toBe(0);
    expect(await receivers(all.eventId!)).toEqual([ids.chosen, ids.other].sort());
  });

  it('passes the fan-out’s rule through: a filter that leaves the type out gets nothing', async () => {
    const left = await trigger('message.received', '--endpoint', ids.filtered);
    expect(left.code).toBe(0);
    expect(await receivers(left.eventId!)).toEqual([]);
    const taken = await trigger('contact.approved', `--endpoint=${ids.filtered}`);
    expect(taken.code).toBe(0);
    expect(await receivers(taken.eventId!)).toEqual([ids.filtered]);
  });

  it('prints the service’s 404 for an endpoint of another workspace or none, exit code 1', async () => {
    for (const id of [ids.foreign, 'whk_000000000000000000000000']) {
      const run = await trigger('message.received', '--endpoint', id);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        /^svc-webhooks trigger: the service refused: 404 not_found: no such webhook endpoint in this workspace \(request req_[0-9a-f]+\)\.\n$/,
      );
      expect(run.stderr).not.toContain(tenant.key);
    }
  });

  it('refuses a value that is not an endpoint id before calling: exit code 2, nothing emitted', async () => {
    const rows = async () => (await deliveries(service, tenant, ids.chosen)).map((row) => row.event_id);
    const before = await rows();
    for (const [args, message] of [
      [['--endpoint'], /--endpoint/],
      [['--endpoint', ''], /--endpoint is empty/],
      [['--endpoint', 'https://hooks.example.com/foreign'], /--endpoint takes an endpoint id/],
    ] as const) {
      const run = await trigger('message.received', ...args);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    expect(await rows()).toEqual(before);
  });
});
