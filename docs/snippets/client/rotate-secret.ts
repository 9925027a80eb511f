import type { Client } from '@svc-kit/client';

export interface Rotation {
  /** The new secret: store it as the receiver's SVC_WEBHOOK_SECRET. Never log it. */
  readonly secret: string;
  /** Until then, deliveries are also signed with the old secret; keep it as SVC_WEBHOOK_SECRET_PREVIOUS. */
  readonly keepPreviousUntil: Date;
}

export async function rotateSecret(client: Client, endpointId: string): Promise<Rotation> {
  const { secret, previous_accepted_until } = await client.webhooks.rotateSecret(endpointId);
  return { secret, keepPreviousUntil: new Date(previous_accepted_until) };
}
