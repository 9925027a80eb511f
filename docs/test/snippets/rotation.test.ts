import { isWebhookVerificationError } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import { createWebhooks } from '../../snippets/rotation/receiver';
import { type Delivery, messageReceived, signedDelivery } from '../support/deliveries';

const OLD = 'whsec_before_rotation';
const NEW = 'whsec_after_rotation';

async function accepts(env: Record<string, string>, delivery: Delivery): Promise<boolean> {
  try {
    await createWebhooks(env).verify(delivery.body, delivery.headers);
    return true;
  } catch (error) {
    if (isWebhookVerificationError(error) && error.reason === 'no_matching_signature') return false;
    throw error;
  }
}

describe('rotating the signing secret', () => {
  const before = { SVC_WEBHOOK_SECRET: OLD };
  const during = { SVC_WEBHOOK_SECRET: NEW, SVC_WEBHOOK_SECRET_PREVIOUS: OLD };
  const after = { SVC_WEBHOOK_SECRET: NEW };

  it('accepts deliveries signed during the overlap (new v1 first, old second) at every step', async () => {
    const overlap = await signedDelivery([NEW, OLD], messageReceived('thr_overlap'));
    expect(overlap.headers['x-service-signature']?.match(/v1=/g)).toHaveLength(2);
    expect(await accepts(before, overlap)).toBe(true);
    expect(await accepts(during, overlap)).toBe(true);
    expect(await accepts(after, overlap)).toBe(true);
  });

  it('keeps accepting a delivery signed before the rotation while both secrets are configured', async () => {
    const late = await signedDelivery(OLD, messageReceived('thr_signed_before'));
    expect(await accepts(during, late)).toBe(true);
    // Which is why the old secret stays until previous_accepted_until, not one moment less.
    expect(await accepts(after, late)).toBe(false);
  });

  it('refuses a secret that was never the endpoint’s', async () => {
    const forged = await signedDelivery('whsec_someone_else');
    expect(await accepts(during, forged)).toBe(false);
  });

  it('refuses to start without any secret', () => {
    expect(() => createWebhooks({})).toThrow(/secret/);
  });
});
