import {
  AuthenticationError,
  BadRequestError,
  Client,
  NotFoundError,
  PermissionDeniedError,
} from '@svc-kit/client';
import { EVENT_TYPES } from '@svc-kit/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { BACKENDS } from '../support/backends.js';
import { createTenant, startTestService, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

/** The published typed client against the real server: the contract, client and service agree. */
describe.each(BACKENDS)('the typed client against the service on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(store);
  });
  afterAll(async () => {
    await service?.close();
  });

  const keyClient = (apiKey: string) =>
    new Client({ apiKey, baseUrl: service.baseUrl, validateResponses: true, maxRetries: 0 });
  // Node's fetch keeps no cookie jar and sends no Origin: the portal page's cookie and origin are headers.
  const portalClient = (cookie: string) =>
    new Client({
      session: true,
      baseUrl: service.baseUrl,
      validateResponses: true,
      maxRetries: 0,
      headers: { cookie, origin: new URL(service.baseUrl).origin },
    });

  it('runs the whole endpoint life cycle', async () => {
    const tenant = await createTenant(service.ctx);
    const api = keyClient(tenant.key);
    const portal = portalClient(tenant.steppedUpSession);

    const created = await portal.webhooks.create({
      url: 'https://hooks.example.com/c',
      events: ['message.received'],
    });
    expect(created.secret).toMatch(/^whsec_/);
    const list = await api.webhooks.list();
    expect(list).toEqual({ endpoints: [created.endpoint], events: [...EVENT_TYPES], enabled: false });

    const rotated = await api.webhooks.rotateSecret(created.endpoint.id);
    expect(rotated.secret).not.toBe(created.secret);

    const paused = await api.webhooks.setStatus(created.endpoint.id, { status: 'paused' });
    expect(paused.endpoints[0]).toMatchObject({ id: created.endpoint.id, status: 'paused' });

    expect(await api.webhooks.listDeliveries(created.endpoint.id, { limit: 100 })).toEqual({
      deliveries: [],
    });
    expect(await api.webhooks.delete(created.endpoint.id)).toBeUndefined();
    expect((await api.webhooks.list()).endpoints).toEqual([]);
  });

  it('runs the client README’s Node session recipe: sign in, step up, create a webhook', async () => {
    const tenant = await createTenant(service.ctx);
    // The recipe is a file of the client package (shown in its README); loaded by URL, it stays outside
    // this package's TypeScript program.
    const recipeUrl = new URL('../../../packages/client/examples/node-session.ts', import.meta.url).href;
    const recipe = (await import(recipeUrl)) as {
      openSession: (baseUrl: string, email: string, password: string, totpCode: string) => Promise<string>;
      memberClient: (baseUrl: string, cookie: string) => Client;
    };
    const code = currentTotp(tenant.totpSecret!, Date.now());
    const cookie = await recipe.openSession(service.baseUrl, tenant.email, tenant.password, code);
    const created = await recipe
      .memberClient(service.baseUrl, cookie)
      .webhooks.create({ url: 'https://hooks.example.com/recipe' });
    expect(created.secret).toMatch(/^whsec_/);
    await expect(recipe.openSession(service.baseUrl, tenant.email, 'wrong password', code)).rejects.toThrow(
      'sign-in refused: 401',
    );
  });

  it('surfaces the service’s refusals as the client’s typed errors', async () => {
    const tenant = await createTenant(service.ctx);
    const api = keyClient(tenant.key);
    const refusal = await api.webhooks
      .create({ url: 'https://hooks.example.com/k' })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PermissionDeniedError);
    expect(refusal).toMatchObject({ status: 403, code: 'step_up_required' });

    const portal = portalClient(tenant.steppedUpSession);
    const bad = await portal.webhooks
      .create({ url: 'http://hooks.example.com/k' })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ code: 'invalid_request' });

    const missing = await api.webhooks.rotateSecret('whk_missing').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);

    const stranger = await keyClient(`svc_${'0'.repeat(16)}_${'0'.repeat(64)}`)
      .webhooks.list()
      .catch((error: unknown) => error);
    expect(stranger).toBeInstanceOf(AuthenticationError);
    expect((stranger as AuthenticationError).requestId).toMatch(/^req_/);
  });
});
