import { MAX_ENDPOINTS_PER_HOST, MAX_WEBHOOK_ENDPOINTS, ROTATION_OVERLAP_MS } from '@svc-kit/contract';
import { describe, expect, it } from 'vitest';
import {
  capRefusal,
  eventFilter,
  rotationEndsAt,
  SIGNING_SECRET_BYTES,
  signingSecretOf,
} from '../../src/features/webhooks/rules.js';

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

  it('refuses a new endpoint only when the workspace has the most it may have, in all or on its host', () => {
    const spread = (n: number) => Array.from({ length: n }, (_, i) => `https://h${i}.example.com/`);
    const url = 'https://new.example.com/hook';
    expect(capRefusal(url, spread(MAX_WEBHOOK_ENDPOINTS - 1))).toBeUndefined();
    expect(capRefusal(url, spread(MAX_WEBHOOK_ENDPOINTS))).toMatchObject({ code: 'forbidden' });
    const onHost = Array.from({ length: MAX_ENDPOINTS_PER_HOST }, (_, i) => `https://new.example.com/${i}`);
    expect(capRefusal(url, onHost)).toMatchObject({ code: 'forbidden' });
    expect(capRefusal(url, onHost.slice(1))).toBeUndefined();
  });

  it('keeps a replaced secret verifying for the contract’s overlap', () => {
    expect(rotationEndsAt(1_000)).toBe(1_000 + ROTATION_OVERLAP_MS);
  });
});
