import { MAX_WEBHOOK_ENDPOINTS, ROTATION_OVERLAP_MS } from '@svc-kit/contract';
import { describe, expect, it } from 'vitest';
import {
  capRefusal,
  eventFilter,
  localReceiverHint,
  rotationEndsAt,
  SIGNING_SECRET_BYTES,
  signingSecretOf,
} from '../../src/features/webhooks/rules.js';

describe('the webhook endpoint rules', () => {
  it('names the sandbox setting when a receiver on this machine is refused, and only then', () => {
    const hint = localReceiverHint('http://localhost:3000/webhooks', false);
    expect(hint).toContain('SVC_ALLOW_LOCALHOST_WEBHOOKS=1');
    expect(localReceiverHint('http://127.0.0.1:3000/webhooks', false)).toBe(hint);
    expect(localReceiverHint('https://LOCALHOST/webhooks', false)).toBe(hint);
    expect(localReceiverHint('http://localhost:3000/webhooks', true)).toBe('');
    expect(localReceiverHint('http://hooks.example.com/webhooks', false)).toBe('');
    expect(localReceiverHint('http://10.0.0.1/webhooks', false)).toBe('');
    expect(localReceiverHint('not a url', false)).toBe('');
  });

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

  it('refuses a new endpoint only when the workspace has the most it may have', () => {
    expect(capRefusal(MAX_WEBHOOK_ENDPOINTS - 1)).toBeUndefined();
    expect(capRefusal(MAX_WEBHOOK_ENDPOINTS)).toMatchObject({ code: 'forbidden' });
  });

  it('keeps a replaced secret verifying for the contract’s overlap', () => {
    expect(rotationEndsAt(1_000)).toBe(1_000 + ROTATION_OVERLAP_MS);
  });
});
