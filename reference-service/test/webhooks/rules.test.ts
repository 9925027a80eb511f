import { describe, expect, it } from 'vitest';
import { eventFilter, SIGNING_SECRET_BYTES, signingSecretOf } from '../../src/features/webhooks/rules.js';

describe('the webhook endpoint rules', () => {
  it('shapes a signing secret as whsec_ and its bytes in base64url', () => {
    const secret = signingSecretOf(new Uint8Array(SIGNING_SECRET_BYTES).fill(0xff));
    expect(secret).toBe(`whsec_${'_'.repeat(42)}8`);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  });

  it('keeps an event filter as a set, in the order first named', () => {
    expect(eventFilter(['contact.approved', 'contact.requested', 'contact.approved'])).toEqual([
      'contact.approved',
      'contact.requested',
    ]);
    expect(eventFilter([])).toEqual([]);
  });
});
