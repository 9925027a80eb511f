import type * as z from 'zod';
import type { Operation, OperationGroup } from '../operations/define.js';
import { TRANSPORT_REFUSALS } from '../operations/statuses.js';
import { componentRef, type JsonSchema, renderParameters } from './json-schema.js';
import { type Budget429, IDEMPOTENCY_KEY_PARAMETER, refusalRef } from './responses.js';

export const TAGS: Record<OperationGroup, { name: string; description: string }> = {
  webhooks: {
    name: 'Workspace webhooks',
    description: 'Endpoints that receive signed event notifications, their secrets and their delivery log.',
  },
  contacts: {
    name: 'Identity contacts',
    description: 'The parties an identity knows by fingerprint: requests, approval, blocking, tools.',
  },
  integrations: {
    name: 'Identity integrations',
    description:
      'Upstream tool servers connected to an identity, and which of their tools contacts may reach.',
  },
};

const pascal = (id: string): string => id.charAt(0).toUpperCase() + id.slice(1);
export const requestComponentId = (op: Operation): string => `${pascal(op.operationId)}Request`;
export const responseComponentId = (op: Operation): string => `${pascal(op.operationId)}Response`;

function parameters(op: Operation): unknown[] {
  const out: unknown[] = [];
  for (const [place, schema] of [
    ['path', op.pathParams],
    ['query', op.query],
  ] as const) {
    if (!schema) continue;
    const { properties, required } = renderParameters(schema);
    for (const [name, property] of Object.entries(properties)) {
      out.push({ name, in: place, required: place === 'path' || required.includes(name), schema: property });
    }
  }
  if (op.flags.idempotent) out.push({ $ref: `#/components/parameters/${IDEMPOTENCY_KEY_PARAMETER}` });
  return out;
}

function description(op: Operation): string {
  const paragraphs = [
    op.summary,
    `Requires the permission \`${op.permission}\` (audited as \`${op.action}\`).`,
  ];
  if (op.flags.stepUp) {
    paragraphs.push(
      'Requires a step-up: a portal session whose owner has MFA and re-authenticated within the last 15 minutes. API keys can never step up, so a key is refused with 403 `step_up_required` whatever its scopes.',
    );
  }
  if (op.flags.suspended) {
    paragraphs.push(
      'Refused with 403 `workspace_suspended` or `workspace_deletion_hold` while the workspace is suspended or on deletion hold.',
    );
  }
  if (op.flags.idempotent) {
    paragraphs.push(
      'Accepts an `Idempotency-Key` header; a repeat within 24 hours returns the first answer.',
    );
  }
  return paragraphs.join('\n\n');
}

function successResponse(
  op: Operation,
  named: ReadonlyMap<z.core.$ZodType, string>,
): Record<string, unknown> {
  const { status, schema } = op.success;
  if (schema === null) return { [status]: { description: 'Done; the answer has no body.' } };
  const body: JsonSchema =
    schema._zod.def.type === 'null'
      ? { type: 'null' }
      : { $ref: componentRef(named.get(schema) ?? responseComponentId(op)) };
  return {
    [status]: {
      description: status === 201 ? 'Created.' : 'Success.',
      content: { 'application/json': { schema: body } },
    },
  };
}

/** One OpenAPI operation object. */
export function operationObject(
  op: Operation,
  named: ReadonlyMap<z.core.$ZodType, string>,
): Record<string, unknown> {
  // The transport refusals can answer any request, before it reaches the operation: listed on every one.
  // An operation's own 429: the webhook operations have no outbound budget, only the filtered log reads.
  const budget: Budget429 | undefined = !(op.errors as readonly number[]).includes(429)
    ? undefined
    : op.group === 'webhooks'
      ? 'filtered-reads'
      : 'outbound';
  const refusals = Object.fromEntries(
    [...op.errors, ...TRANSPORT_REFUSALS].map((status) => [String(status), refusalRef(status, budget)]),
  );
  const params = parameters(op);
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: description(op),
    tags: [TAGS[op.group].name],
    security: op.flags.stepUp ? [{ session: [] }] : [{ session: [] }, { apiKey: [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body
      ? {
          requestBody: {
            // A body schema with a default (approveContact) may be left out entirely.
            required: !op.body.safeParse(undefined).success,
            content: {
              'application/json': {
                schema: { $ref: componentRef(named.get(op.body) ?? requestComponentId(op)) },
              },
            },
          },
        }
      : {}),
    responses: { ...successResponse(op, named), ...refusals },
    'x-permission': op.permission,
    'x-action': op.action,
    'x-suspended': op.flags.suspended,
    'x-idempotent': op.flags.idempotent,
    'x-step-up': op.flags.stepUp,
  };
}

/** The `paths` object: operations grouped by path template, in table order. */
export function pathsObject(
  ops: readonly Operation[],
  named: ReadonlyMap<z.core.$ZodType, string>,
): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    const item = paths[op.path] ?? {};
    item[op.method.toLowerCase()] = operationObject(op, named);
    paths[op.path] = item;
  }
  return paths;
}
