import type { OperationId } from '../operations/index.js';
import { buildOpenApiDocument } from './document.js';
import type { JsonSchema } from './json-schema.js';

type OpenApiOperation = {
  operationId: string;
  responses: Record<string, { content?: { 'application/json'?: { schema: JsonSchema } } }>;
};

/**
 * The JSON Schema of each operation's success answer, as the OpenAPI document renders it: its `$ref`
 * resolves inside the schema itself, which carries the document's components. A server serialises an
 * answer from it (Fastify's `fast-json-stringify`), so the members it writes, and their order, are the
 * contract's. `undefined` for an operation that answers without a body.
 */
export function answerJsonSchemas(): Record<OperationId, JsonSchema | undefined> {
  const document = buildOpenApiDocument() as {
    paths: Record<string, Record<string, OpenApiOperation>>;
    components: { schemas: Record<string, JsonSchema> };
  };
  const components = { schemas: document.components.schemas };
  const out: Record<string, JsonSchema | undefined> = {};
  for (const pathItem of Object.values(document.paths)) {
    for (const op of Object.values(pathItem)) {
      const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'));
      const schema = success?.[1].content?.['application/json']?.schema;
      out[op.operationId] = schema && { ...schema, components };
    }
  }
  return out as Record<OperationId, JsonSchema | undefined>;
}
