import type { AddressInfo } from 'node:net';
import { Client } from '@svc-kit/client';
import { createSandbox, SANDBOX_API_KEY, sandboxFingerprint } from '@svc-kit/mock';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { approvePendingRequests } from './contacts';
import { createWebhookApp } from './welcome';

const baseUrl = 'https://api.example.test';
const secret = 'whsec_test_only';
const alice = sandboxFingerprint('alice');

const sandbox = createSandbox({
  baseUrl,
  // Deliveries may go to a receiver this test starts on 127.0.0.1 (and only there).
  delivery: { allowLoopback: true },
  data: {
    identities: {
      'support-bot': {
        contacts: [{ fingerprint: alice, display_name: 'Alice', status: 'pending_in' }],
      },
    },
  },
});
const api = setupServer(...sandbox.handlers);
const client = new Client({ apiKey: SANDBOX_API_KEY, baseUrl });

const welcomed: string[] = [];
let url: string;
let close: () => void;

beforeAll(async () => {
  api.listen({ onUnhandledRequest: 'error' });
  const server = createWebhookApp(secret, (identity, contact) => {
    welcomed.push(`${identity} welcomes ${contact}`);
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  close = () => server.close();
});
// The app's endpoint, registered with the secret the app verifies with.
beforeEach(() => sandbox.seed({ webhooks: [{ url, secret }] }));
afterEach(() => {
  sandbox.reset();
  welcomed.length = 0;
});
afterAll(() => {
  close();
  api.close();
});

it('approving a request sends contact.approved, and the app welcomes the new contact', async () => {
  await approvePendingRequests(client, 'support-bot');
  await sandbox.deliveries.settled();

  expect(welcomed).toEqual([`support-bot welcomes ${alice}`]);
  const [delivery] = sandbox.state.deliveries();
  expect(delivery).toMatchObject({ event_type: 'contact.approved', status: 'delivered', http_status: 200 });
});

it('a delivery the app cannot verify fails, and the log says how', async () => {
  sandbox.reset();
  sandbox.seed({ webhooks: [{ url, secret: 'whsec_not_the_apps' }] });

  await approvePendingRequests(client, 'support-bot');
  await sandbox.deliveries.settled();

  expect(welcomed).toEqual([]);
  const [delivery] = sandbox.state.deliveries();
  expect(delivery).toMatchObject({ status: 'failed', http_status: 401 });
  // The first 500 bytes of the app's answer, as the service's log keeps them.
  expect(delivery?.response_excerpt).toContain('no_matching_signature');
});
