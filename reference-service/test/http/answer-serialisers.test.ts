import { answerJsonSchemas, type OperationId, operationExamples, operations } from '@svc-kit/contract';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every answer is written by the serialiser Fastify compiles from the contract's JSON Schema of the
 * operation (http/operations.ts). Here each operation's worked example goes through that serialiser on a
 * Fastify app of its own: what comes out is the example, member for member and in the schema's order.
 */
const schemas = answerJsonSchemas();
const ids = Object.keys(operations) as OperationId[];

describe("each operation's answer serialiser", () => {
  const app = Fastify({ logger: false });
  // What a route answers: set per request, so that one route per operation serves any body.
  let next: unknown;
  beforeAll(async () => {
    for (const id of ids) {
      const schema = schemas[id];
      if (!schema) continue;
      app.post(
        `/${id}`,
        { schema: { response: { [operations[id].success.status]: schema } } },
        (_req, reply) => reply.code(operations[id].success.status).send(next),
      );
    }
    await app.ready();
  });
  afterAll(() => app.close());

  const serialise = async (id: OperationId, body: unknown) => {
    next = body;
    const response = await app.inject({ method: 'POST', url: `/${id}` });
    return { status: response.statusCode, text: response.body };
  };

  it('has a schema for exactly the operations that answer with a body', () => {
    for (const id of ids) expect(schemas[id] === undefined, id).toBe(operations[id].success.schema === null);
  });

  it.each(ids.filter((id) => schemas[id] !== undefined))(
    '%s writes its example as the example is',
    async (id) => {
      const example = operationExamples[id].answer;
      expect(example.status).toBe(operations[id].success.status);
      expect(operations[id].success.schema!.safeParse(example.body).success).toBe(true);
      const { status, text } = await serialise(id, example.body);
      expect(status).toBe(example.status);
      // The same members in the same order: the example is written as the contract's record.
      expect(text).toBe(JSON.stringify(example.body));
    },
  );

  it('writes no member the schema does not name (a row read whole cannot leak a column)', async () => {
    const example = operationExamples.listWebhooks.answer.body as { endpoints: object[] };
    expect(example.endpoints.length).toBeGreaterThan(0);
    const withSecrets = {
      ...example,
      endpoints: example.endpoints.map((endpoint) => ({
        ...endpoint,
        secret_enc: 'sealed',
        deleted_at: null,
      })),
    };
    const { text } = await serialise('listWebhooks', withSecrets);
    expect(text).toBe(JSON.stringify(example));
  });

  it('refuses to write an answer that lacks a required member, rather than sending it', async () => {
    const example = operationExamples.listWebhooks.answer.body as { endpoints: object[] };
    const { id: _id, ...withoutId } = example.endpoints[0] as { id: string };
    const { status } = await serialise('listWebhooks', { ...example, endpoints: [withoutId] });
    expect(status).toBe(500);
  });
});
