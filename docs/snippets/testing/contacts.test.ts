import { Client } from '@svc-kit/client';
import { createSandbox, SANDBOX_API_KEY, sandboxFingerprint } from '@svc-kit/mock';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { approvePendingRequests } from './contacts';

const sandbox = createSandbox({
  baseUrl: 'https://api.example.test',
  data: {
    identities: {
      'support-bot': {
        contacts: [
          { fingerprint: sandboxFingerprint('alice'), display_name: 'Alice', status: 'pending_in' },
          { fingerprint: sandboxFingerprint('bob'), display_name: 'Bob', status: 'active' },
        ],
      },
    },
  },
});
const server = setupServer(...sandbox.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => sandbox.reset());
afterAll(() => server.close());

const client = new Client({ apiKey: SANDBOX_API_KEY, baseUrl: 'https://api.example.test' });

it('approves the pending request and leaves active contacts alone', async () => {
  const approved = await approvePendingRequests(client, 'support-bot');

  expect(approved).toEqual([sandboxFingerprint('alice')]);
  const alice = sandbox.state
    .contacts('support-bot')
    .find((c) => c.fingerprint === sandboxFingerprint('alice'));
  expect(alice).toMatchObject({ status: 'active', preset: 'colleague' });
});

it('stops at the first refusal', async () => {
  sandbox.inject('approveContact', 'workspace_suspended');

  await expect(approvePendingRequests(client, 'support-bot')).rejects.toMatchObject({
    status: 403,
    code: 'workspace_suspended',
  });
});
