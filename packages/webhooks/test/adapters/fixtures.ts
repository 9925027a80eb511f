import { createTestHeaders, type WebhookEvent, Webhooks } from '@svc-kit/webhooks';

export const SECRET = 'whsec_adapter-tests-secret';

export const EVENT = {
  id: 'evt_01adaptertest',
  type: 'message.received',
  created_at: 1_700_000_000_000,
  identity: 'acme-support',
  data: { thread_id: 'thr_42', contact: `sha256:${'ab'.repeat(32)}` },
} as const;

export const BODY = JSON.stringify(EVENT);

/** A Webhooks instance that records what reached its handlers. */
export function recordingWebhooks() {
  const webhooks = new Webhooks({ secret: SECRET });
  const received: WebhookEvent[] = [];
  const threads: string[] = [];
  const errors: { reason: string; message: string }[] = [];
  webhooks.on('message.received', (event) => {
    // Typed: `data.thread_id` exists on this event type only.
    threads.push(event.data.thread_id);
  });
  webhooks.onAny((event) => {
    received.push(event);
  });
  webhooks.onError((error) => {
    errors.push({ reason: 'reason' in error ? error.reason : 'handler_failed', message: error.message });
  });
  return { webhooks, received, threads, errors };
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/** A delivery signed now (or `ageSeconds` ago) with `secret`, with the service's four headers. */
export async function signedDelivery(
  options: { body?: string; secret?: string; ageSeconds?: number } = {},
): Promise<SignedRequest> {
  const body = options.body ?? BODY;
  const headers = await createTestHeaders(body, {
    secret: options.secret ?? SECRET,
    timestamp: Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0),
  });
  return { body, headers: { ...headers, 'content-type': 'application/json' } };
}

export interface ErrorAnswer {
  error: { reason: string; message: string };
}

export async function errorOf(response: Response): Promise<ErrorAnswer['error']> {
  const json = (await response.json()) as ErrorAnswer;
  return json.error;
}
