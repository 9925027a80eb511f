import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  type ErrorCode,
  errorBodySchema,
  type OperationId,
  operationExamples,
  operations,
} from '../src/index.js';
import { buildOpenApiDocument } from '../src/openapi/document.js';

const ids = Object.keys(operations) as OperationId[];

describe('operation examples', () => {
  it('exist for every operation, with at least one refusal each', () => {
    expect(Object.keys(operationExamples).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(operationExamples[id].refusals.length, id).toBeGreaterThan(0);
  });

  for (const id of ids) {
    it(`${id}: the call and its answers fit the operation's schemas`, () => {
      const op = operations[id];
      const { request, answer, refusals } = operationExamples[id];
      for (const call of [
        request,
        ...refusals.filter((r) => r.answer.status !== 400).map((r) => r.request),
      ]) {
        if (op.pathParams)
          expect(op.pathParams.safeParse(call.params ?? {}).success, `${id} params`).toBe(true);
        else expect(call.params).toBeUndefined();
        if (op.query && call.query) expect(op.query.safeParse(call.query).success, `${id} query`).toBe(true);
        if (op.body) expect(op.body.safeParse(call.body).success, `${id} body`).toBe(true);
        else expect(call.body).toBeUndefined();
      }
      // The successful call: a step-up operation is shown with the session, never with an API key.
      expect(request.auth).toBe(op.flags.stepUp ? 'session' : 'apiKey');
      expect(answer.status).toBe(op.success.status);
      if (op.success.schema === null) expect(answer.body).toBeUndefined();
      else expect(op.success.schema.parse(answer.body)).toEqual(answer.body);

      for (const refusal of refusals) {
        expect(op.errors, `${id}: ${refusal.summary}`).toContain(refusal.answer.status);
        const body = errorBodySchema.parse(refusal.answer.body);
        expect(ERROR_CODES[body.error.code as ErrorCode].status).toBe(refusal.answer.status);
      }
    });
  }

  it('are carried by the OpenAPI document: parameters, request body, answer and refusals', () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    for (const id of ids) {
      const op = operations[id];
      const object = doc.paths[op.path]?.[op.method.toLowerCase()] as {
        parameters?: { name?: string; example?: unknown; schema?: { type?: string } }[];
        requestBody?: { content: Record<string, { example?: unknown }> };
        responses: Record<string, { content?: Record<string, { example?: unknown; examples?: object }> }>;
      };
      const example = operationExamples[id];
      for (const parameter of object.parameters ?? []) {
        if (parameter.name && parameter.name !== 'Idempotency-Key') {
          const given = { ...example.request.params, ...example.request.query }[parameter.name];
          expect(parameter.example, `${id} ${parameter.name}`).toBe(given);
          // An example of the parameter's own type: `limit: 20`, not the string "20".
          if (parameter.schema?.type === 'integer') expect(Number.isInteger(parameter.example)).toBe(true);
        }
      }
      if (op.body)
        expect(object.requestBody?.content['application/json']?.example).toEqual(example.request.body);
      if (op.success.schema) {
        expect(object.responses[String(op.success.status)]?.content?.['application/json']?.example).toEqual(
          example.answer.body,
        );
      }
      for (const refusal of example.refusals) {
        const examples =
          object.responses[String(refusal.answer.status)]?.content?.['application/json']?.examples;
        expect(Object.values(examples ?? {})).toContainEqual({
          summary: refusal.summary,
          value: refusal.answer.body,
        });
      }
    }
  });
});
