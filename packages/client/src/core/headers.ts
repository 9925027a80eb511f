import type { Operation } from '@svc-kit/contract';
import { VERSION } from '../version.js';
import type { ClientConfig } from './config.js';
import { refuse } from './config.js';
import type { HeadersLike } from './options.js';

/**
 * The headers of one call: the client's, then the call's, then the ones the client computes (which the
 * caller cannot replace, so that auth and idempotency stay consistent across retries).
 */
export function buildHeaders(
  config: ClientConfig,
  op: Operation,
  extra: HeadersLike | undefined,
  idempotencyKey: string | undefined,
  hasBody: boolean,
): Headers {
  const headers = new Headers();
  try {
    for (const source of [config.headers, extra]) {
      if (source === undefined) continue;
      for (const [name, value] of new Headers(source as HeadersInit)) headers.set(name, value);
    }
  } catch {
    refuse(['headers'], 'a header name or value is not valid', op.operationId);
  }
  headers.set('accept', 'application/json');
  headers.set('x-svc-kit-client', VERSION);
  if (hasBody) headers.set('content-type', 'application/json');
  else headers.delete('content-type');
  if (config.auth.kind === 'apiKey') headers.set('authorization', `Bearer ${config.auth.apiKey}`);
  else headers.delete('authorization');
  if (idempotencyKey !== undefined) headers.set('idempotency-key', idempotencyKey);
  else headers.delete('idempotency-key');
  return headers;
}
