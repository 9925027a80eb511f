import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../snippets/quickstart/express';
import { type Delivery, messageReceived, signedDelivery } from '../support/deliveries';

const SECRET = 'whsec_docs_quickstart_secret';
const WRONG_SECRET = 'whsec_some_other_endpoint';

let log: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  return () => vi.restoreAllMocks();
});

/** The line every quickstart handler logs: proof that the event was verified, typed and routed. */
function handledThread(threadId: string) {
  return `message in thread ${threadId} for support-bot`;
}

async function post(url: string, delivery: Delivery): Promise<Response> {
  return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
}

describe('Express quickstart', () => {
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const server = createApp(SECRET).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  it('verifies a signed delivery and runs the handler', async () => {
    const response = await post(url, await signedDelivery(SECRET, messageReceived('thr_express')));
    expect(response.status).toBe(200);
    expect(log).toHaveBeenCalledWith(handledThread('thr_express'));
  });

  it('refuses a delivery signed with another secret, without running the handler', async () => {
    const response = await post(url, await signedDelivery(WRONG_SECRET));
    expect(response.status).toBe(401);
    expect(log).not.toHaveBeenCalled();
  });
});
