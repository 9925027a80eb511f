import * as z from 'zod';

export type JsonSchema = Record<string, unknown>;

export const componentRef = (id: string): string => `#/components/schemas/${id}`;

/** Drops the keywords zod adds for a standalone document; inside OpenAPI they are noise. */
function bare(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * Renders named schemas as OpenAPI components. Requests are rendered as the caller writes them
 * (`io: 'input'`: defaults optional) and answers as the caller reads them (`io: 'output'`), each pass
 * with every named resource available by `$ref`. A component both passes render must come out the same;
 * otherwise the document would describe one name two ways.
 */
export function renderComponents(
  shared: ReadonlyArray<readonly [string, z.core.$ZodType]>,
  requests: ReadonlyArray<readonly [string, z.core.$ZodType]>,
  responses: ReadonlyArray<readonly [string, z.core.$ZodType]>,
): Record<string, JsonSchema> {
  const pass = (io: 'input' | 'output', own: ReadonlyArray<readonly [string, z.core.$ZodType]>) => {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of [...shared, ...own]) registry.add(schema, { id });
    const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io, uri: componentRef });
    return schemas as Record<string, JsonSchema>;
  };
  const inputs = pass('input', requests);
  const outputs = pass('output', responses);
  const merged: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries({ ...inputs, ...outputs })) {
    const input = inputs[id];
    const output = outputs[id];
    if (input && output && JSON.stringify(input) !== JSON.stringify(output)) {
      throw new Error(`component ${id} renders differently as a request and as an answer; split it in two`);
    }
    merged[id] = bare(schema);
  }
  return merged;
}

/** Renders one object schema (path or query parameters) without references. */
export function renderParameters(schema: z.core.$ZodObject): {
  properties: Record<string, JsonSchema>;
  required: string[];
} {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return { properties: json.properties ?? {}, required: json.required ?? [] };
}
