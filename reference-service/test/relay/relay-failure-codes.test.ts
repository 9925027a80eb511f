import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Relay } from '../../src/relay/relay.js';
import { RELAY_TIMINGS } from '../../src/relay/types.js';
import { BACKENDS } from '../support/backends.js';

// The delivery log's code for a relayed delivery must name the side that failed: the portal words
// `listener_gone` as "your listen session stopped", which sends the person to a listener that may be fine.
describe.each(BACKENDS)('a relayed delivery the service itself could not pass on, on $name', (backend) => {
  it('is logged as `other` (the service log has why), not as a listener gone', async () => {
    const store = await backend.open();
    const relay = new Relay(store.db, pino({ level: 'silent' }), {
      ...RELAY_TIMINGS,
      soleInstance: false,
      now: () => Date.now(),
    });
    // A closed database: the NOTIFY asking the other instances for the listener's stream fails.
    await store.close();
    const outcome = await relay.deliver({
      endpoint_id: 'whk_000000000000000000000000',
      delivery_id: 'dlv_000000000000000000000000',
      event_id: 'evt_000000000000000000000000',
      event_type: 'message.received',
      headers: {},
      body: '{}',
    });
    expect(outcome).toMatchObject({ kind: 'failed', code: 'other' });
    expect(outcome.kind === 'failed' && outcome.reason).toBe('the relay could not reach the listener');
  });
});
