import { expect, it } from 'vitest';
import { rawCall } from './expect.js';
import type { Target } from './target.js';

/** Operations that take no body: a body is refused with 400, so the document must list that answer. */
const BODILESS = [
  'rotateWebhookSecret',
  'deleteWebhook',
  'rejectContact',
  'notifyAcceptance',
  'deleteIntegration',
] as const;

interface Document {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
  components: { responses: Record<string, { content?: unknown }> };
}

/** The OpenAPI document each target serves at /v1/openapi.json (both serve the contract's). */
export function openApiScenarios(target: () => Target): void {
  it('lists the 400 of operations that take no body, and documents 503 service_unavailable', async () => {
    const [party] = await target().pair();
    const answer = await rawCall(target(), party, 'GET', '/v1/openapi.json');
    expect(answer.status).toBe(200);
    const document = answer.body as Document;
    const responses = new Map(
      Object.values(document.paths).flatMap((methods) =>
        Object.values(methods).map(
          (operation) => [operation.operationId, operation.responses ?? {}] as const,
        ),
      ),
    );
    for (const operationId of BODILESS) {
      expect({ operationId, has400: '400' in (responses.get(operationId) ?? {}) }).toEqual({
        operationId,
        has400: true,
      });
    }
    const unavailable = document.components.responses.ServiceUnavailable;
    expect(JSON.stringify(unavailable)).toContain('service_unavailable');
    // Answered by operations that wait on a peer (and by an idempotent call whose first is still running).
    expect(Object.keys(responses.get('rejectContact') ?? {})).toContain('503');
  });
}
