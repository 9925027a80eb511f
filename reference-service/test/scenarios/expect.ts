import { APIError } from '@svc-kit/client';
import { errorBodySchema } from '@svc-kit/contract';
import { expect } from 'vitest';
import type { Party, Target } from './target.js';

/** The call is refused with this status and code, as an `APIError` of the typed client. */
export async function expectApiError(
  call: Promise<unknown>,
  status: number,
  code: string,
): Promise<APIError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  expect(error).toMatchObject({ status, code });
  return error as APIError;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * A request built by hand with the party's key, for what the typed client will not send (no body where
 * one is expected, a body where none is, a lower-case scheme). Error answers are checked for the spec's body.
 */
export async function rawCall(
  target: Target,
  party: Party,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await target.fetch(party, path, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const body: unknown = text === '' ? undefined : JSON.parse(text);
  if (response.status >= 400) expect(errorBodySchema.safeParse(body).success).toBe(true);
  return { status: response.status, headers: response.headers, body };
}
