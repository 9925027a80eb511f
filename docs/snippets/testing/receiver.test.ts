import type { AddressInfo } from 'node:net';
import { createTestHeaders } from '@svc-kit/webhooks';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createApp } from './app';

const secret = 'whsec_test_only';
let url: string;
let close: () => void;

beforeAll(async () => {
  const server = createApp(secret).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  close = () => server.close();
});
afterAll(() => close());

const body = JSON.stringify({
  id: 'evt_test_1',
  type: 'message.received',
  created_at: Date.now(),
  identity: 'support-bot',
  data: { thread_id: 'thr_test_1', contact: `sha256:${'0'.repeat(64)}` },
});

it('handles a delivery signed with the endpoint secret', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const headers = await createTestHeaders(body, { secret });

  const response = await fetch(url, { method: 'POST', headers, body });

  expect(response.status).toBe(200);
  expect(log).toHaveBeenCalledWith('message in thread thr_test_1 for support-bot');
  log.mockRestore();
});

it('refuses a delivery signed ten minutes ago', async () => {
  const timestamp = Math.floor(Date.now() / 1000) - 600;
  const headers = await createTestHeaders(body, { secret, timestamp });

  const response = await fetch(url, { method: 'POST', headers, body });

  expect(response.status).toBe(401);
  expect(await response.json()).toMatchObject({ error: { reason: 'timestamp_too_old' } });
});
