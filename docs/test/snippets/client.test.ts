import { ClientValidationError } from '@svc-kit/client';
import { createSandbox, SANDBOX_API_KEY, sandboxFingerprint } from '@svc-kit/mock';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { approveRequest } from '../../snippets/client/approve';
import { createClient } from '../../snippets/client/create-client';
import { deliveryReport } from '../../snippets/client/delivery-report';
import { rotateSecret } from '../../snippets/client/rotate-secret';
import { createWebhooks } from '../../snippets/rotation/receiver';
import { messageReceived, signedDelivery } from '../support/deliveries';

const BASE_URL = 'https://api.example.test';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const ALICE = sandboxFingerprint('alice');

const sandbox = createSandbox({
  baseUrl: BASE_URL,
  now: () => NOW,
  data: {
    webhooks: [{ id: 'whk_main', url: 'https://hooks.example.org/svc' }],
    deliveries: [
      { endpoint_id: 'whk_main', status: 'failed', http_status: 503, event_type: 'message.received' },
      { endpoint_id: 'whk_main', status: 'delivered', http_status: 200, event_type: 'contact.approved' },
    ],
    identities: {
      'support-bot': { contacts: [{ fingerprint: ALICE, display_name: 'Alice', status: 'pending_in' }] },
    },
  },
});
const server = setupServer(...sandbox.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => sandbox.reset());
afterAll(() => server.close());

const client = createClient({ SVC_API_KEY: SANDBOX_API_KEY, SVC_BASE_URL: BASE_URL });

describe('creating the client', () => {
  it('refuses a missing API key before sending anything', () => {
    expect(() => createClient({ SVC_BASE_URL: BASE_URL })).toThrow(ClientValidationError);
  });
});

describe('the delivery report', () => {
  it('lists each endpoint with its latest attempts', async () => {
    const lines = await deliveryReport(client);
    expect(lines[0]).toBe('https://hooks.example.org/svc: active, 0 failures in a row');
    expect(lines.slice(1).sort()).toEqual([
      expect.stringMatching(/^ {2}contact\.approved evt_\S+: delivered \(200\)$/),
      expect.stringMatching(/^ {2}message\.received evt_\S+: failed \(503\)$/),
    ]);
  });

  it('says when webhooks are switched off for the workspace', async () => {
    sandbox.seed({ workspace: { webhooksEnabled: false } });
    expect(await deliveryReport(client)).toContain(
      'webhooks are switched off for this workspace: nothing is delivered',
    );
  });
});

describe('approving a request', () => {
  it('approves a pending request as a colleague', async () => {
    expect(await approveRequest(client, 'support-bot', ALICE)).toBe('approved');
    expect(sandbox.state.contacts('support-bot')[0]).toMatchObject({ status: 'active', preset: 'colleague' });
  });

  it('reports a request that does not exist', async () => {
    expect(await approveRequest(client, 'support-bot', sandboxFingerprint('nobody'))).toBe('no-such-request');
  });

  it('hands a rate limit back to the caller with the wait, without retrying', async () => {
    sandbox.inject('approveContact', 'rate_limited', { times: 1, retryAfter: 30 });
    expect(await approveRequest(client, 'support-bot', ALICE)).toEqual({ retryInSeconds: 30 });
    expect(sandbox.state.contacts('support-bot')[0]).toMatchObject({ status: 'pending_in' });
  });

  it('recognises a suspended workspace', async () => {
    sandbox.inject('approveContact', 'workspace_suspended');
    expect(await approveRequest(client, 'support-bot', ALICE)).toBe('workspace-blocked');
  });

  it('lets other failures through', async () => {
    sandbox.inject('approveContact', 'internal_error');
    await expect(approveRequest(client, 'support-bot', ALICE)).rejects.toMatchObject({ status: 500 });
  });
});

describe('rotating a secret', () => {
  it('returns the new secret and how long to keep the old one', async () => {
    const previous = sandbox.state.webhookSecrets('whk_main')?.current ?? '';
    const rotation = await rotateSecret(client, 'whk_main');

    expect(rotation.keepPreviousUntil.getTime()).toBe(NOW + 24 * 60 * 60 * 1000);
    expect(sandbox.state.webhookSecrets('whk_main')).toEqual({ current: rotation.secret, previous });

    // The receiver configured as the rotation page says accepts what the service signs during the overlap.
    const webhooks = createWebhooks({
      SVC_WEBHOOK_SECRET: rotation.secret,
      SVC_WEBHOOK_SECRET_PREVIOUS: previous,
    });
    const delivery = await signedDelivery([rotation.secret, previous], messageReceived('thr_rotated'));
    await expect(webhooks.verify(delivery.body, delivery.headers)).resolves.toMatchObject({
      type: 'message.received',
    });
  });
});
