import { SAMPLE_EVENT_DATA } from '@svc-kit/contract';
import { EVENT_TYPES, eventSchemas } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { NewEvent } from '../../src/store/queries/events.js';

describe("the sandbox's sample event data", () => {
  it.each(EVENT_TYPES)('%s: has a sample with exactly the catalogue’s members', (type) => {
    const data = SAMPLE_EVENT_DATA[type]({ contact: `sha256:${'0'.repeat(64)}`, threadId: 'thr_1' });
    expect(z.strictObject(eventSchemas[type].shape).safeParse(data).success).toBe(true);
  });

  it('covers exactly the catalogue', () => {
    expect(Object.keys(SAMPLE_EVENT_DATA).sort()).toEqual([...EVENT_TYPES].sort());
  });
});

/** Never run: the type checker holds an event's data to its type's members where the event is made. */
export function eventsThatDoNotCompile(): NewEvent[] {
  const at = { workspaceId: 'wks', identity: 'idn', createdAt: 0 };
  return [
    { ...at, type: 'integration.created', data: { integration: 'x' } },
    // @ts-expect-error a member the catalogue does not name
    { ...at, type: 'integration.created', data: { integration: 'x', secret: 'y' } },
    // @ts-expect-error a member misspelt
    { ...at, type: 'contact.approved', data: { contacts: 'sha256:0' } },
    // @ts-expect-error another type's data
    { ...at, type: 'message.received', data: { integration: 'x' } },
  ];
}
