import { errorBodySchema, operations } from '@svc-kit/contract';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ALICE, FIXTURE, raw, SLUG, useSandbox } from './support.js';

const sandbox = useSandbox({ data: FIXTURE });

/** Every answer is either the operation's success, validated by the contract, or a 400 with the error body. */
async function expectSuccessOr400(response: Response, operationId: keyof typeof operations) {
  const op = operations[operationId];
  const json: unknown = await response.json();
  if (response.status === 400) {
    expect(errorBodySchema.safeParse(json).success).toBe(true);
  } else {
    expect(response.status).toBe(op.success.status);
    expect(op.success.schema?.safeParse(json).success).toBe(true);
  }
}

describe('arbitrary input never crashes the sandbox', () => {
  test('arbitrary JSON bodies to requestContact, updateContact, setExposure and createIntegration', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('requestContact', 'updateContact', 'setExposure', 'createIntegration' as const),
        fc.oneof(
          fc.jsonValue(),
          fc.dictionary(
            fc.constantFrom(
              'card',
              'note',
              'preset',
              'permissions',
              'entries',
              'catalogue',
              'slug',
              'endpoint',
              'auth',
              'transport',
            ),
            fc.jsonValue(),
          ),
        ),
        async (operationId, body) => {
          const params = { slug: SLUG, fingerprint: ALICE, name: 'notes' };
          await expectSuccessOr400(
            await raw(operationId, { params, body: JSON.stringify(body) }),
            operationId,
          );
          sandbox.reset();
        },
      ),
      { numRuns: 150 },
    );
  });

  test('arbitrary query strings to listWebhookDeliveries and listContacts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('listWebhookDeliveries', 'listContacts' as const),
        fc.string(),
        async (operationId, query) => {
          const response = await raw(operationId, {
            params: { id: 'whk_seeded', slug: SLUG },
            query: encodeURIComponent(query).replace('%3D', '='),
          });
          await expectSuccessOr400(response, operationId);
        },
      ),
      { numRuns: 100 },
    );
  });

  test('arbitrary path segments answer 200, 404 or 400, never 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        async (slug, fingerprint) => {
          const response = await raw('listContactTools', { params: { slug, fingerprint } });
          expect([200, 400, 404]).toContain(response.status);
          if (response.status !== 200)
            expect(errorBodySchema.safeParse(await response.json()).success).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
