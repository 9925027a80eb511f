import { Client } from '@svc-kit/client';

/**
 * Every /v1 operation of the contract goes through the typed client in session mode: the browser sends the
 * session cookie itself, same-origin only. No retries: a person is watching and can press the button again.
 */
export const api = new Client({ baseUrl: location.origin, session: true, maxRetries: 0, timeoutMs: 30_000 });
