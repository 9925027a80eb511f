import type * as z from 'zod';
import { withOperationExamples } from '../examples/openapi.js';
import { operationList } from '../operations/index.js';
import { namedSchemas } from './components.js';
import { renderComponents } from './json-schema.js';
import { pathsObject, requestComponentId, responseComponentId, TAGS } from './paths.js';
import { refusalResponses, sharedHeaders, sharedParameters } from './responses.js';
import { EVENTS_TAG, eventBodySchemas, eventHeaderParameters, webhooksObject } from './webhook-events.js';

/**
 * Builds the OpenAPI 3.1.0 description of the contract from the operation table, so the document cannot
 * drift from what the client, the mock and the service use. The result is plain JSON.
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  const named = new Map<z.core.$ZodType, string>(namedSchemas.map(([id, schema]) => [schema, id]));
  const requests: [string, z.core.$ZodType][] = [];
  // Event bodies are rendered as answers are: as the receiver reads them.
  const responses: [string, z.core.$ZodType][] = eventBodySchemas();
  for (const op of operationList) {
    if (op.body && !named.has(op.body)) requests.push([requestComponentId(op), op.body]);
    const answer = op.success.schema;
    if (answer && answer.def.type !== 'null' && !named.has(answer)) {
      responses.push([responseComponentId(op), answer]);
    }
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace webhooks, identity contacts and identity integrations',
      version: '1.0.0',
      summary: 'The /v1 operations covered by the svc-kit contract.',
      description:
        'Generated from `@svc-kit/contract`. Every refusal answers with the `ErrorBody` shape; its `code` values are listed on the error-codes page. Timestamps in records are integer milliseconds since the Unix epoch.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The service’s base address.',
        variables: { base_url: { default: 'http://localhost:8080', description: 'Scheme, host and port.' } },
      },
    ],
    security: [{ session: [] }, { apiKey: [] }],
    tags: [...Object.values(TAGS), EVENTS_TAG],
    paths: withOperationExamples(pathsObject(operationList, named)),
    webhooks: webhooksObject(),
    components: {
      schemas: renderComponents(namedSchemas, requests, responses),
      responses: refusalResponses(),
      parameters: { ...sharedParameters, ...eventHeaderParameters() },
      headers: sharedHeaders,
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-svc_session',
          description:
            'The portal’s session cookie. State-changing calls must be same-origin, or they are refused with 403 `cross_site`.',
        },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'svc_<id>_<secret>',
          description:
            'A workspace API key. Its scopes narrow its owner’s permissions; it can never step up. Malformed, unknown and revoked keys are all answered 401.',
        },
      },
    },
  };
}
