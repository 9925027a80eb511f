import { defineOperation, type Operation } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationHandler } from '../../src/http/operations.js';
import { call, createTenant, expectRefusal, startTestService, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

/** A test-only operation whose handler fails the way a bug would. */
const crash = defineOperation({
  operationId: 'testCrash',
  group: 'webhooks',
  method: 'GET',
  path: '/v1/test/crash',
  pathParams: null,
  query: null,
  body: null,
  success: { status: 204, schema: null },
  errors: [401, 403, 404],
  permission: 'service:workspace:admin',
  action: 'webhook:read',
  flags: { suspended: false, idempotent: false, stepUp: false },
  summary: 'test only',
});

describe('an unexpected failure', () => {
  const store = useStore();
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(store, {
      extra: {
        extraOperations: { testCrash: crash as Operation },
        extraHandlers: {
          testCrash: {
            transaction: 'none',
            run: (async () => {
              throw new Error('boom: a bug in a handler');
            }) as OperationHandler<Operation>,
          },
        },
      },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers 500 with the error body, tells the caller nothing of the cause, and logs it under the request id', async () => {
    const tenant = await createTenant(service.ctx);
    const result = await call(service, 'GET', '/v1/test/crash', { auth: { key: tenant.key } });
    expectRefusal(result, 500, 'internal_error');
    expect(result.text).not.toContain('boom');
    const requestId = result.headers.get('x-request-id');
    const logged = service
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { reqId?: string; level: number; err?: { message?: string } })
      .find((line) => line.reqId === requestId && line.level >= 50);
    expect(logged?.err?.message).toContain('boom');
  });
});
