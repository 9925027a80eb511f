import { errorBodySchema, operations } from '@svc-kit/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startTestService, type Tenant, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

/**
 * Arbitrary JSON (and arbitrary text) thrown at every webhook operation: each answer is either the
 * operation's success or a 400 with the error body. Never a 500, never a hang.
 */
describe('webhook operations under arbitrary input', () => {
  const store = useStore();
  let service: TestService;
  let tenant: Tenant;
  let endpointId: string;

  beforeAll(async () => {
    service = await startTestService(store);
    tenant = await createTenant(service.ctx);
    const created = await call(service, 'POST', '/v1/workspace/webhooks', {
      auth: { cookie: tenant.steppedUpSession },
      body: { url: 'https://hooks.example.com/fuzz' },
    });
    endpointId = operations.createWebhook.success.schema.parse(created.body).endpoint.id;
  });
  afterAll(async () => {
    await service?.close();
  });

  const bodies = fc.oneof(
    fc.jsonValue(),
    fc.record(
      { url: fc.oneof(fc.string(), fc.webUrl(), fc.jsonValue()), events: fc.jsonValue() },
      { requiredKeys: [] },
    ),
    fc.record(
      { status: fc.oneof(fc.constantFrom('active', 'paused'), fc.jsonValue()) },
      { requiredKeys: [] },
    ),
  );

  function expectSuccessOr400(result: { status: number; body: unknown }, success: number) {
    if (result.status === success) return;
    expect(result.status).toBe(400);
    expect(errorBodySchema.parse(result.body).error.code).toBe('invalid_request');
  }

  it('createWebhook', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const result = await call(service, 'POST', '/v1/workspace/webhooks', {
          auth: { cookie: tenant.steppedUpSession },
          body,
        });
        expectSuccessOr400(result, 201);
      }),
      { numRuns: 60 },
    );
  });

  it('setWebhookStatus', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const result = await call(service, 'PATCH', `/v1/workspace/webhooks/${endpointId}`, {
          auth: { key: tenant.key },
          body,
        });
        expectSuccessOr400(result, 200);
      }),
      { numRuns: 60 },
    );
  });

  it('listWebhookDeliveries with arbitrary query text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (name, value) => {
        const query = new URLSearchParams({ [name]: value }).toString();
        const result = await call(
          service,
          'GET',
          `/v1/workspace/webhooks/${endpointId}/deliveries?${query}`,
          {
            auth: { key: tenant.key },
          },
        );
        expectSuccessOr400(result, 200);
      }),
      { numRuns: 60 },
    );
  });

  it('raw text sent as JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (text) => {
        const result = await call(service, 'POST', `/v1/workspace/webhooks/${endpointId}/secret`, {
          auth: { key: tenant.key },
          rawBody: text,
        });
        expectSuccessOr400(result, 200);
      }),
      { numRuns: 60 },
    );
  });
});
