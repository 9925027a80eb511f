import {
  answerJsonSchemas,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  type Operation,
  type OperationGroup,
  type OperationId,
  type Operations,
  operations,
  type ResponseOf,
  toColonPath,
} from '@svc-kit/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ServiceContext } from '../context.js';
import { IDEMPOTENCY_KEYS_KEPT, limitBucket } from '../domain/door-limits.js';
import { ServiceError } from '../domain/errors.js';
import { requestFingerprint } from '../domain/idempotency.js';
import { STEP_UP_IF_ENROLLED } from '../domain/step-up.js';
import type { Db, Queryable } from '../store/db.js';
import { type Answer, type KeepKey, runIdempotent, runIdempotentInSteps } from '../store/idempotent.js';
import type { IdempotentCall } from '../store/queries/idempotency.js';
import { spendBudget } from './budget-guard.js';
import type { RouteRequirements } from './early-refusals.js';
import { sendError } from './error-body.js';
import { parse } from './parse.js';
import { type Authorized, authorize } from './policy.js';

// `core.$ZodType`: the contract's schemas are zod/mini, which classic zod's `ZodType` does not cover.
type OutputOf<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

/**
 * Each operation's answer as the contract renders it for OpenAPI: Fastify's serialiser compiled from it sends
 * the contract's members, in its order, and nothing else.
 */
const ANSWER_SCHEMAS = answerJsonSchemas();

/** What a handler receives: validated input, the authorized caller, and the connection to use. */
export interface OperationCall<Op extends Operation, D extends Queryable = Queryable> extends Authorized {
  /** The handle its transaction mode gives (see `OperationEntry`); a handler uses this one and no other. */
  db: D;
  params: OutputOf<Op['pathParams']>;
  query: OutputOf<Op['query']>;
  body: OutputOf<Op['body']>;
  now: number;
  request: FastifyRequest;
}

export type OperationHandler<Op extends Operation, D extends Queryable = Queryable> = (
  call: OperationCall<Op, D>,
) => Promise<{ status: Op['success']['status']; body: OutputOf<Op['success']['schema']> }>;

/**
 * How a handler meets the database, and so its `Idempotency-Key`: `none` runs on the handle given (the pool,
 * or the key's transaction, which stores the answer with it); `one` always in one transaction (the key's when
 * there is one); `own` is given the database and opens short transactions of its own, because it calls a
 * peer, an upstream or DNS in between: a peer on this instance answers through the same database, and on
 * PGlite (one connection) would wait on a transaction held across the call; no connection should wait on a
 * lookup either. Its key is claimed and answered in steps (store/idempotent.ts).
 */
export type OperationEntry<Op extends Operation> =
  | { transaction: 'none' | 'one'; run: OperationHandler<Op> }
  | { transaction: 'own'; run: OperationHandler<Op, Db> };

/** The served operations, each with its handler and its transaction mode. */
export type OperationTable = { [Id in OperationId]?: OperationEntry<Operations[Id]> };

/** A typed answer of an operation, checked against its contract status at compile time. */
export function answer<Id extends OperationId>(
  _id: Id,
  status: Operations[Id]['success']['status'],
  body: ResponseOf<Id>,
): { status: Operations[Id]['success']['status']; body: ResponseOf<Id> } {
  return { status, body };
}

function validate<S extends z.core.$ZodType | null>(schema: S, value: unknown, where: string): OutputOf<S> {
  if (schema === null) {
    const empty =
      value === undefined ||
      value === null ||
      (typeof value === 'object' && Object.keys(value as object).length === 0);
    if (!empty) throw new ServiceError('invalid_request', `this operation takes no ${where}`);
    return undefined as OutputOf<S>;
  }
  // A JSON `null` body is parsed as the value it is: a body, when given, must be an object (as in the mock).
  return parse(schema, where === 'body' ? value : (value ?? {}), where) as OutputOf<S>;
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ServiceError(
      'invalid_request',
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
    );
  }
  return key;
}

/**
 * Registers the table's operations; one without a handler answers 501 `not_implemented` (known, not served).
 */
/** Bodies larger than the service's default limit (base.ts): an exposure's entries may be up to 256 KiB. */
const BODY_LIMITS: Partial<Record<OperationId, number>> = { setExposure: 1024 * 1024 };

export function registerOperations(
  app: FastifyInstance,
  ctx: ServiceContext,
  table: Readonly<Record<string, Operation>>,
  handlers: OperationTable | Readonly<Record<string, OperationEntry<Operation>>>,
): void {
  for (const op of Object.values(table)) {
    const entry = (handlers as Record<string, OperationEntry<Operation> | undefined>)[op.operationId];
    const requirements = {
      ...op.flags,
      permission: op.permission,
      // The refusal's subject, which the portal's step-up dialog shows as a sentence.
      stepUpIfEnrolled: STEP_UP_IF_ENROLLED.has(op.operationId)
        ? `the operation ${op.operationId}`
        : undefined,
    };
    const answerSchema = ANSWER_SCHEMAS[op.operationId as OperationId];
    const bodyLimit = BODY_LIMITS[op.operationId as OperationId];
    app.route({
      method: op.method,
      url: toColonPath(op.path),
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
      ...(answerSchema ? { schema: { response: { [op.success.status]: answerSchema } } } : {}),
      // Read by the early refusals (early-refusals.ts): an unreadable body is answered after this policy.
      config: { requirements } satisfies RouteRequirements,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        if (!entry) {
          return sendError(
            request,
            reply,
            'not_implemented',
            `${op.operationId} is not served by the reference service yet`,
          );
        }
        const now = ctx.now();
        const authorized = await authorize(ctx, request, requirements, now);
        const input = {
          params: validate(op.pathParams, request.params, 'path parameters'),
          query: validate(op.query, request.query, 'query'),
          body: validate(op.body, request.body, 'body'),
        };
        const key = op.flags.idempotent ? idempotencyKeyOf(request) : undefined;
        const call = { ...authorized, ...input, now, request };
        const idempotentCall =
          key === undefined
            ? undefined
            : {
                workspaceId: authorized.workspace.id,
                key,
                fingerprint: requestFingerprint({ operationId: op.operationId, ...input }),
                now,
              };
        const result = await runEntry(ctx.db, entry, call, idempotentCall, ctx.now);
        if (result.replayed) reply.header('Idempotent-Replayed', 'true');
        reply.code(result.status);
        if (result.status === 204) return reply.send();
        return reply.send(result.body);
      },
    });
  }
}

/** Runs a handler as its mode says, under its `Idempotency-Key` when the call carries one. */
function runEntry(
  db: Db,
  entry: OperationEntry<Operation>,
  call: Omit<OperationCall<Operation>, 'db'>,
  idempotent: IdempotentCall | undefined,
  clock: () => number,
): Promise<Answer & { replayed?: boolean }> {
  if (entry.transaction === 'own') {
    const run = () => entry.run({ ...call, db }) as Promise<Answer>;
    return idempotent ? runIdempotentInSteps(db, idempotent, run, clock, keepKeyOf(idempotent)) : run();
  }
  const run = (handle: Queryable) => entry.run({ ...call, db: handle }) as Promise<Answer>;
  if (idempotent) return runIdempotent(db, idempotent, run, keepKeyOf(idempotent));
  return entry.transaction === 'one' ? db.transaction(run) : run(db);
}

/**
 * A new key is a row kept for its window: it spends the workspace's budget once claimed (a replay spends
 * nothing). Past it the 429 is not the key's answer, so the call may be made again once the budget refills.
 */
function keepKeyOf(call: IdempotentCall): KeepKey {
  const bucket = limitBucket('idempotency-keys', call.workspaceId);
  return (handle) => spendBudget(handle, bucket, IDEMPOTENCY_KEYS_KEPT, call.now);
}

/** The contract's operations of one group: each feature registers its own. */
export function operationsOfGroup(group: OperationGroup): Record<string, Operation> {
  return Object.fromEntries(
    Object.values(operations as Readonly<Record<string, Operation>>)
      .filter((op) => op.group === group)
      .map((op) => [op.operationId, op]),
  );
}
