import { createTestHeaders } from '@svc-kit/webhooks';

export interface Delivery {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** A `message.received` body as the service sends it: ids and metadata only. */
export function messageReceived(threadId = 'thr_docs_1', identity = 'support-bot'): string {
  return JSON.stringify({
    id: `evt_${threadId}`,
    type: 'message.received',
    created_at: Date.now(),
    identity,
    data: { thread_id: threadId, contact: `sha256:${'ab'.repeat(32)}` },
  });
}

/** A delivery signed the way the service signs it (one `v1` per secret, in order). */
export async function signedDelivery(
  secret: string | readonly string[],
  body = messageReceived(),
): Promise<Delivery> {
  return {
    body,
    headers: { 'content-type': 'application/json', ...(await createTestHeaders(body, { secret })) },
  };
}
