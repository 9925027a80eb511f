import type { Operation, OperationId, Operations, ResponseOf } from '@svc-kit/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isPeerCallingHandler } from '../domain/contacts/calls-peers.js';
import { ServiceError } from '../domain/errors.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH, requestFingerprint } from '../domain/idempotency.js';
import type { Queryable } from '../store/db.js';
import { type Answer, ReplayedRefusal, runIdempotent } from '../store/idempotent.js';
import { runIdempotentOutsideTransaction } from '../store/queries/contacts-idempotency.js';
import { confirmedCall } from './confirmed-call.js';
import type { RouteRequirements } from './early-refusals.js';
import { sendError } from './error-body.js';
import type { Authorized } from './policy.js';
import type { ServiceContext } from './service-context.js';

// `core.$ZodType`: the contract's schemas are zod/mini, which classic zod's `ZodType` does not cover.
type OutputOf<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

/** What a handler receives: validated input, the authorized caller, and the connection to use. */
export interface OperationCall<Op extends Operation> extends Authorized {
  /** A transaction for idempotent calls (the answer is stored in it); the pool otherwise. */
  db: Queryable;
  params: OutputOf<Op['pathParams']>;
  query: OutputOf<Op['query']>;
  body: OutputOf<Op['body']>;
  now: number;
  request: FastifyRequest;
}

export type OperationHandler<Op extends Operation> = (
  call: OperationCall<Op>,
) => Promise<{ status: Op['success']['status']; body: OutputOf<Op['success']['schema']> }>;

export type OperationHandlers = { [Id in OperationId]?: OperationHandler<Operations[Id]> };

/** A typed answer of an operation, checked against its contract status at compile time. */
export function answer<Id extends OperationId>(
  _id: Id,
  status: Operations[Id]['success']['status'],
  body: ResponseOf<Id>,
): { status: Operations[Id]['success']['status']; body: ResponseOf<Id> } {
  return { status, body };
}

/** `/v1/workspace/webhooks/{id}` → `/v1/workspace/webhooks/:id` */
export function toFastifyPath(path: string): string {
  return path.replace(/\{([a-zA-Z_]+)\}/g, ':$1');
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
  const result = z.safeParse(schema, value ?? (where === 'body' ? undefined : {}));
  if (!result.success) {
    throw new ServiceError('invalid_request', `invalid ${where}: ${z.prettifyError(result.error)}`);
  }
  return result.data as OutputOf<S>;
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
 * Registers every operation of the table. Those with a handler are served; the others answer 501
 * `not_implemented` with the error body, so a caller learns the route is known but not served here.
 */
export function registerOperations(
  app: FastifyInstance,
  ctx: ServiceContext,
  table: Readonly<Record<string, Operation>>,
  handlers: Readonly<Record<string, OperationHandler<Operation> | undefined>>,
): void {
  for (const op of Object.values(table)) {
    const handler = handlers[op.operationId];
    const requirements = { ...op.flags, permission: op.permission };
    app.route({
      method: op.method,
      url: toFastifyPath(op.path),
      // Read by the early refusals (early-refusals.ts): an unreadable body is answered after this policy.
      config: { requirements } satisfies RouteRequirements,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        if (!handler) {
          return sendError(
            request,
            reply,
            'not_implemented',
            `${op.operationId} is not served by the reference service yet`,
          );
        }
        const now = ctx.now();
        // The connection is the pool's, or one that confirms a held key with its first statement.
        const result = await confirmedCall(
          ctx,
          request,
          op.operationId,
          requirements,
          now,
          async (authorized, conn) => {
            const input = {
              params: validate(op.pathParams, request.params, 'path parameters'),
              query: validate(op.query, request.query, 'query'),
              body: validate(op.body, request.body, 'body'),
            };
            const key = op.flags.idempotent ? idempotencyKeyOf(request) : undefined;
            const run = (db: Queryable) =>
              handler({ ...authorized, ...input, db, now, request }) as Promise<Answer>;
            let result: Answer & { replayed?: boolean };
            if (key === undefined) {
              result = await run(conn);
            } else {
              const fingerprint = requestFingerprint({
                operationId: op.operationId,
                pathParams: input.params,
                query: input.query,
                body: input.body,
              });
              const idempotentCall = { workspaceId: authorized.workspace.id, key, fingerprint, now };
              try {
                // Handlers that call peers run outside one transaction (see domain/contacts/calls-peers.ts).
                result = isPeerCallingHandler(handler)
                  ? await runIdempotentOutsideTransaction(ctx.db, idempotentCall, () => run(ctx.db))
                  : await runIdempotent(ctx.db, idempotentCall, run);
              } catch (error) {
                if (error instanceof ReplayedRefusal) reply.header('Idempotent-Replayed', 'true');
                throw error;
              }
              if (result.replayed) reply.header('Idempotent-Replayed', 'true');
            }
            return result;
          },
        );
        reply.code(result.status);
        return result.status === 204 ? reply.send() : reply.send(result.body);
      },
    });
  }
}
