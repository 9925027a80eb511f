import { APIError, InternalServerError, RateLimitError } from '@svc-kit/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactor } from '../src/core/redact.js';
import { errorFromResponse } from '../src/errors/from-response.js';
import { parseRetryAfterHeader } from '../src/errors/retry-after.js';

const SECRET = 'svc_k_fuzzsecret';
const redact = redactor(SECRET);

function answer(status: number, headers: Record<string, string> = {}) {
  return { status, statusText: '', headers: new Headers(headers) };
}

describe('errorFromResponse never throws, whatever the body', () => {
  it('arbitrary text and JSON give an APIError of the status’s class, with a message and no secret', () => {
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify({ error: value })),
      fc
        .record(
          { code: fc.string(), message: fc.string(), request_id: fc.string(), retry_after: fc.anything() },
          {
            requiredKeys: [],
          },
        )
        .map((error) => JSON.stringify({ error })),
      fc.string().map((s) => `${s}${SECRET}${s}`),
    );
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 599 }), body, (status, text) => {
        const error = errorFromResponse(answer(status), text, redact);
        expect(error).toBeInstanceOf(APIError);
        expect(error.status).toBe(status);
        if (status >= 500) expect(error).toBeInstanceOf(InternalServerError);
        if (status === 429) expect(error).toBeInstanceOf(RateLimitError);
        expect(typeof error.message).toBe('string');
        expect(error.message.length).toBeGreaterThan(0);
        expect(error.message).not.toContain(SECRET);
        expect(JSON.stringify(error.body ?? null)).not.toContain(SECRET);
      }),
    );
  });

  it('retry_after that is not a non-negative integer is ignored in favour of the header', () => {
    for (const retryAfter of [-1, 1.5, '5', null]) {
      const text = JSON.stringify({
        error: { code: 'rate_limited', message: 'm', request_id: 'r', retry_after: retryAfter },
      });
      const error = errorFromResponse(answer(429, { 'retry-after': '4' }), text, redact) as RateLimitError;
      expect(error.retryAfter).toBe(4);
      expect(error.code).toBe('rate_limited');
    }
  });
});

describe('parseRetryAfterHeader', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfterHeader('120', now)).toBe(120);
    expect(parseRetryAfterHeader(' 3 ', now)).toBe(3);
    expect(parseRetryAfterHeader('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfterHeader('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
  });

  it('gives undefined for anything else, never NaN or a negative number', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const seconds = parseRetryAfterHeader(value, now);
        if (seconds !== undefined) {
          expect(Number.isInteger(seconds)).toBe(true);
          expect(seconds).toBeGreaterThanOrEqual(0);
        }
      }),
    );
    for (const value of [null, '', '-5', '1.5', '1e3', 'soon'])
      expect(parseRetryAfterHeader(value, now)).toBeUndefined();
  });
});
