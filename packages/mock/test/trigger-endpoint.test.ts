import { TRIGGER_ENDPOINT_NOT_FOUND } from '@svc-kit/contract';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox } from '../src/index.js';
import { BASE_URL, SLUG, sessionClient } from './support.js';

// `emit(type, { endpoint })`, the mock's side of the service's `POST /sandbox/events` with `endpoint`
// (reference-service/test/sandbox-events-endpoint.test.ts checks the service's side of the same rule).

const now = 1_700_000_000_000;
const options = {
  baseUrl: BASE_URL,
  now: () => now,
  randomSeed: 'trigger-endpoint',
  data: { identities: { [SLUG]: {} } },
  delivery: { receivers: {} },
};
const sandbox = createSandbox(options);
const server = setupServer(...sandbox.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  await sandbox.deliveries.settled();
  sandbox.reset();
});
afterAll(() => server.close());

const portal = sessionClient();

/** A live endpoint on its own host, answering 204 in process. */
async function endpoint(name: string, events: string[] = []): Promise<string> {
  const url = `https://${name}.example.org/hooks`;
  sandbox.deliveries.receive(url, () => new Response(null, { status: 204 }));
  return (await portal.webhooks.create({ url, events: events as never })).endpoint.id;
}

/** The endpoints an event got a delivery row for. */
function receivers(eventId: string): string[] {
  return sandbox.state
    .webhooks()
    .flatMap((hook) =>
      sandbox.state.deliveries(hook.id).some((row) => row.event_id === eventId) ? [hook.id] : [],
    )
    .sort();
}

describe('emit with an endpoint: one endpoint’s test event', () => {
  test('goes to that endpoint only; without it, to every endpoint that takes the type', async () => {
    const chosen = await endpoint('chosen');
    const other = await endpoint('other');
    expect(receivers(sandbox.emit('message.received', { endpoint: chosen }).id)).toEqual([chosen]);
    expect(receivers(sandbox.emit('message.received').id)).toEqual([chosen, other].sort());
    await sandbox.deliveries.settled();
    const sent = sandbox.deliveries.sent().map((delivery) => delivery.endpointId);
    expect(sent.sort()).toEqual([chosen, chosen, other].sort());
  });

  test('keeps the fan-out’s rules: a paused endpoint, or one whose filter leaves the type out, gets nothing', async () => {
    const paused = await endpoint('paused');
    const filtered = await endpoint('filtered', ['contact.approved']);
    await portal.webhooks.setStatus(paused, { status: 'paused' });
    // Recorded, as the service answers 201 for them, but sent nowhere.
    expect(receivers(sandbox.emit('message.received', { endpoint: paused }).id)).toEqual([]);
    expect(receivers(sandbox.emit('message.received', { endpoint: filtered }).id)).toEqual([]);
    expect(receivers(sandbox.emit('contact.approved', { endpoint: filtered }).id)).toEqual([filtered]);
  });

  test('refuses a removed, unknown or other sandbox’s endpoint as the service does: a 404, nothing sent', async () => {
    const removed = await endpoint('removed');
    await portal.webhooks.delete(removed);
    const elsewhere = createSandbox({ ...options, randomSeed: 'another workspace' });
    elsewhere.seed({ webhooks: [{ url: 'https://foreign.example.org/hooks' }] });
    const foreign = elsewhere.state.webhooks()[0]!.id;
    const live = await endpoint('live');
    for (const id of [removed, foreign, 'whk_000000000000000000000000']) {
      expect(() => sandbox.emit('message.received', { endpoint: id })).toThrow(
        expect.objectContaining({ status: 404, ...TRIGGER_ENDPOINT_NOT_FOUND }),
      );
    }
    // Type and data come first, as in the service: a bad type is the 400's TypeError, whatever the id.
    expect(() => sandbox.emit('no.such.type' as never, { endpoint: removed })).toThrow(TypeError);
    expect(() => sandbox.emit('message.received', { endpoint: 42 as never })).toThrow(TypeError);
    await sandbox.deliveries.settled();
    expect(sandbox.deliveries.sent()).toEqual([]);
    expect(sandbox.state.deliveries(live)).toEqual([]);
  });

  test('a refused trigger draws no id: the ids after it repeat as if it had not been called', () => {
    const twin = () => createSandbox({ ...options, randomSeed: 'twin', delivery: {} });
    const refused = twin();
    const untouched = twin();
    expect(() => refused.emit('message.received', { endpoint: 'whk_000000000000000000000000' })).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    expect(refused.emit('message.received')).toEqual(untouched.emit('message.received'));
  });
});
