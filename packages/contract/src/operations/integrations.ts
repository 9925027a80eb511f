import * as z from 'zod/mini';
import { describe } from 'zod/v4/core';
import { pathSegment } from '../resources/common.js';
import {
  exposureEntrySchema,
  exposureSchema,
  integrationSchema,
  integrationTransportSchema,
} from '../resources/integrations.js';
import { defineOperation } from './define.js';
import { VALIDATED, VALIDATED_UPSTREAM } from './statuses.js';

/** RFC 9110 5.1 / 5.6.2: a field name is a token, one or more `tchar`. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * RFC 9110 5.5: visible characters (and obs-text bytes), with spaces and tabs only between them. No CR, LF,
 * NUL or other control character can reach an upstream request line.
 */
const HTTP_FIELD_VALUE = /^[\x21-\x7e\x80-\xff](?:[\x20-\x7e\x80-\xff\t]*[\x21-\x7e\x80-\xff])?$/;

const identityPath = z.strictObject({ slug: pathSegment });
const integrationPath = z.strictObject({ slug: pathSegment, name: pathSegment });
const integrations = '/v1/identities/{slug}/integrations';
const integration = `${integrations}/{name}`;

const read = { permission: 'service:identities:read', action: 'identity:read' } as const;
const manage = { permission: 'service:identities:manage', action: 'integration:write' } as const;
const plain = { suspended: false, idempotent: false, stepUp: false } as const;
const suspended = { suspended: true, idempotent: false, stepUp: false } as const;

export const listIntegrations = defineOperation({
  operationId: 'listIntegrations',
  group: 'integrations',
  method: 'GET',
  path: integrations,
  pathParams: identityPath,
  query: null,
  body: null,
  success: { status: 200, schema: z.strictObject({ integrations: z.array(integrationSchema) }) },
  errors: VALIDATED,
  ...read,
  flags: plain,
  summary: 'List the upstream tool servers connected to an identity.',
});

export const createIntegration = defineOperation({
  operationId: 'createIntegration',
  group: 'integrations',
  method: 'POST',
  path: integrations,
  pathParams: identityPath,
  query: null,
  body: z.strictObject({
    catalogue: z
      .optional(z.string().check(z.maxLength(64)))
      .check(describe('Connects this entry of the service’s catalogue.')),
    slug: z.optional(z.string().check(z.minLength(2), z.maxLength(32))),
    endpoint: z.optional(z.url()),
    transport: z.optional(integrationTransportSchema),
    auth: z.optional(
      z.nullable(
        z.strictObject({
          header: z
            .string()
            .check(
              z.minLength(1),
              z.maxLength(64),
              z.regex(HTTP_TOKEN, 'must be an HTTP header name (RFC 9110 token characters only)'),
            ),
          value: z
            .string()
            .check(
              z.minLength(1),
              z.maxLength(4096),
              z.regex(
                HTTP_FIELD_VALUE,
                'must be a valid HTTP header value (no control characters, no leading or trailing space)',
              ),
            ),
        }),
      ),
    ),
  }),
  success: {
    status: 201,
    schema: z.strictObject({
      integration: integrationSchema,
      tools: z.int().check(z.nonnegative()),
      trouble: z.nullable(z.string()),
      authorization_url: z.nullable(z.string()),
    }),
  },
  errors: VALIDATED,
  ...manage,
  flags: suspended,
  summary: 'Connect an upstream tool server to an identity, from the catalogue or by address.',
});

export const authorizeIntegration = defineOperation({
  operationId: 'authorizeIntegration',
  group: 'integrations',
  method: 'POST',
  path: `${integration}/authorize`,
  pathParams: integrationPath,
  query: null,
  body: z.strictObject({ scope: z.optional(z.string().check(z.maxLength(512))) }),
  success: { status: 200, schema: z.strictObject({ authorization_url: z.string() }) },
  errors: VALIDATED_UPSTREAM,
  ...manage,
  flags: suspended,
  summary: 'Start the upstream OAuth ceremony; answers where to send the owner.',
});

export const getExposure = defineOperation({
  operationId: 'getExposure',
  group: 'integrations',
  method: 'GET',
  path: `${integration}/exposure`,
  pathParams: integrationPath,
  query: null,
  body: null,
  success: { status: 200, schema: exposureSchema },
  errors: VALIDATED,
  ...read,
  flags: plain,
  summary: 'Read which of an integration’s tools contacts may reach.',
});

export const setExposure = defineOperation({
  operationId: 'setExposure',
  group: 'integrations',
  method: 'POST',
  path: `${integration}/exposure`,
  pathParams: integrationPath,
  query: null,
  body: z.strictObject({ entries: z.array(exposureEntrySchema) }),
  success: { status: 200, schema: z.strictObject({ version: z.int().check(z.nonnegative()) }) },
  errors: VALIDATED,
  ...manage,
  flags: suspended,
  summary: 'Replace which of an integration’s tools contacts may reach.',
});

export const deleteIntegration = defineOperation({
  operationId: 'deleteIntegration',
  group: 'integrations',
  method: 'DELETE',
  path: integration,
  pathParams: integrationPath,
  query: null,
  body: null,
  success: { status: 200, schema: z.null() },
  errors: VALIDATED,
  ...manage,
  flags: suspended,
  summary: 'Disconnect an upstream and forget its credential.',
});
