import { Client } from '@svc-kit/client';
import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../portal/src/api/account.js';
import { needsStepUp, PortalError, problemFromBody, toProblem } from '../../portal/src/api/problem.js';
import { COOKIE_DROPPED, sessionAfterSignIn } from '../../portal/src/api/signed-in.js';

// What the portal shows for a refusal: the service's words, its request id, and for a 429 the wait.
describe('the portal’s reading of refusals', () => {
  it('takes code, message, request id and retry_after from the error body', () => {
    const body = {
      error: { code: 'rate_limited', message: 'too many requests', request_id: 'req_1', retry_after: 42 },
    };
    expect(problemFromBody(429, new Headers({ 'retry-after': '7' }), body)).toEqual({
      status: 429,
      code: 'rate_limited',
      message: 'too many requests',
      requestId: 'req_1',
      retryAfter: 42,
    });
  });

  it('falls back on the headers and says the status when the body is not the error body', () => {
    const headers = new Headers({ 'retry-after': '7', 'x-request-id': 'req_2' });
    expect(problemFromBody(503, headers, '<html>proxy</html>')).toEqual({
      status: 503,
      code: undefined,
      message: 'the service answered 503',
      requestId: 'req_2',
      retryAfter: 7,
    });
    expect(
      problemFromBody(500, new Headers({ 'retry-after': 'soon' }), undefined).retryAfter,
    ).toBeUndefined();
  });

  it('reads a refusal the typed client threw, and recognises step_up_required', async () => {
    const answer = { error: { code: 'step_up_required', message: 'needs MFA', request_id: 'req_3' } };
    const client = new Client({
      baseUrl: 'http://service.test',
      session: true,
      maxRetries: 0,
      fetch: async () =>
        new Response(JSON.stringify(answer), {
          status: 403,
          headers: { 'content-type': 'application/json' },
        }),
    });
    const error = await client.webhooks
      .create({ url: 'https://hooks.example.com/in' })
      .catch((e: unknown) => e);
    expect(toProblem(error)).toMatchObject({
      status: 403,
      code: 'step_up_required',
      message: 'needs MFA',
      requestId: 'req_3',
    });
    expect(needsStepUp(error)).toBe(true);
    expect(needsStepUp(new PortalError({ ...toProblem(error), code: 'forbidden' }))).toBe(false);
    expect(toProblem(new TypeError('Failed to fetch'))).toMatchObject({
      message: 'Failed to fetch',
      requestId: undefined,
    });
  });
});

describe('the session read right after signing in', () => {
  const session = { member: { email: 'a@b.example' } } as unknown as SessionInfo;
  const refused = (status: number) =>
    new PortalError({
      status,
      code: 'unauthenticated',
      message: 'no session',
      requestId: 'req_9',
      retryAfter: undefined,
    });

  it('says in words that the browser dropped the cookie when the read is 401, keeping the request id', async () => {
    expect(await sessionAfterSignIn(async () => session)).toBe(session);
    const error = await sessionAfterSignIn(() => Promise.reject(refused(401))).catch((e: unknown) => e);
    expect(toProblem(error)).toMatchObject({ status: 401, message: COOKIE_DROPPED, requestId: 'req_9' });
    const other = await sessionAfterSignIn(() => Promise.reject(refused(503))).catch((e: unknown) => e);
    expect(toProblem(other).message).toBe('no session');
  });
});
