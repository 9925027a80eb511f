import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, EVENT_TYPES, operationList, TRANSPORT_REFUSALS } from '../src/index.js';

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  webhooks: Record<string, { post: Record<string, unknown> }>;
  components: {
    schemas: Record<string, unknown>;
    responses: Record<string, { content: Record<string, { schema: { $ref: string } }>; headers?: unknown }>;
    parameters: Record<string, { name: string; in: string }>;
    securitySchemes: Record<string, unknown>;
  };
}

const doc = buildOpenApiDocument() as unknown as Doc;
const committed = new URL('../../../docs/public/openapi.json', import.meta.url);

const operationsIn = (d: Doc) =>
  Object.entries(d.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );

/** Resolves a local `$ref` in the document. */
function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
}

describe('OpenAPI document', () => {
  it('is the committed docs/public/openapi.json', () => {
    const onDisk = readFileSync(committed, 'utf8');
    expect(onDisk, 'docs/public/openapi.json is stale: run npm run openapi -w @svc-kit/contract').toBe(
      `${JSON.stringify(doc, null, 2)}\n`,
    );
  });

  it('is OpenAPI 3.1.0 with every operation of the contract', () => {
    expect(doc.openapi).toBe('3.1.0');
    const found = operationsIn(doc);
    expect(found.map(({ op }) => op.operationId).sort()).toEqual(
      operationList.map((op) => op.operationId).sort(),
    );
    for (const op of operationList) {
      const entry = found.find((candidate) => candidate.op.operationId === op.operationId);
      expect(entry?.path).toBe(op.path);
      expect(entry?.method).toBe(op.method.toLowerCase());
      expect(entry?.op['x-permission']).toBe(op.permission);
      expect(entry?.op['x-action']).toBe(op.action);
      expect(entry?.op['x-suspended']).toBe(op.flags.suspended);
      expect(entry?.op['x-step-up']).toBe(op.flags.stepUp);
    }
  });

  it('answers every refusal status with the error body, and 429 with Retry-After', () => {
    for (const op of operationList) {
      // A refusal is the shared response (`$ref`), or its copy carrying this operation's examples.
      const responses = doc.paths[op.path]?.[op.method.toLowerCase()]?.responses as Record<
        string,
        { $ref?: string }
      >;
      const refusals = [...new Set<number>([...op.errors, ...TRANSPORT_REFUSALS])];
      expect(Object.keys(responses).sort()).toEqual(
        [String(op.success.status), ...refusals.map(String)].sort(),
      );
      for (const status of refusals) {
        const raw = responses[String(status)];
        const response = (
          raw?.$ref === undefined ? raw : resolve(raw.$ref)
        ) as Doc['components']['responses'][string];
        expect(response.content['application/json']?.schema).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
        if (status === 429) expect(response.headers).toHaveProperty('Retry-After');
      }
    }
  });

  it('lists Idempotency-Key exactly on idempotent operations', () => {
    for (const op of operationList) {
      const params = (doc.paths[op.path]?.[op.method.toLowerCase()]?.parameters ?? []) as { $ref?: string }[];
      const names = params.map((param) => (param.$ref ? (resolve(param.$ref) as { name: string }).name : ''));
      expect(names.includes('Idempotency-Key')).toBe(op.flags.idempotent);
    }
  });

  it('allows only the session on createWebhook, and both schemes elsewhere', () => {
    for (const { op } of operationsIn(doc)) {
      expect(op.security).toEqual(
        op.operationId === 'createWebhook' ? [{ session: [] }] : [{ session: [] }, { apiKey: [] }],
      );
    }
    expect(doc.components.securitySchemes).toMatchObject({
      session: { type: 'apiKey', in: 'cookie', name: '__Host-svc_session' },
      apiKey: { type: 'http', scheme: 'bearer' },
    });
  });

  it('resolves every $ref it contains', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(resolve(ref.slice(8, -1)), ref).toBeDefined();
  });

  it('describes one outgoing webhook per event type, with the four X-Service headers', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    for (const { post } of Object.values(doc.webhooks)) {
      const names = (post.parameters as { $ref: string }[]).map(
        (p) => (resolve(p.$ref) as { name: string }).name,
      );
      expect(names).toEqual([
        'X-Service-Signature',
        'X-Service-Event-Id',
        'X-Service-Event-Type',
        'X-Service-Delivery',
      ]);
    }
  });
});
