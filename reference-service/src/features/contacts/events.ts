import type { EventType } from '@svc-kit/webhooks';
import type { Queryable } from '../../store/db.js';
import { insertEvent } from '../../store/queries/events.js';

export type ContactEventType = Extract<EventType, `contact.${string}`>;

/** Recorded in the transaction of the change; the data names the contact by fingerprint only. */
export async function recordContactEvent(
  tx: Queryable,
  owner: { workspaceId: string; slug: string },
  type: ContactEventType,
  fingerprint: string,
  now: number,
): Promise<void> {
  await insertEvent(tx, {
    workspaceId: owner.workspaceId,
    identity: owner.slug,
    type,
    data: { contact: fingerprint },
    createdAt: now,
  });
}
