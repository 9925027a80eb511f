import type * as z from 'zod/mini';
import type { Action, Permission } from '../permissions.js';

export interface OperationFlags {
  /** Refused while the workspace is suspended or on deletion hold. */
  suspended: boolean;
  /** Accepts an `Idempotency-Key` header; a repeat within 24 hours returns the first answer. */
  idempotent: boolean;
  /** Needs a fresh step-up, so a session only: never reachable with an API key. */
  stepUp: boolean;
}

export type OperationGroup = 'webhooks' | 'contacts' | 'integrations';
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type SuccessStatus = 200 | 201 | 204;

export interface OperationSuccess<TSchema extends z.ZodMiniType | null = z.ZodMiniType | null> {
  status: SuccessStatus;
  /** `null`: the answer has no body (204). A 200 whose body is JSON `null` uses `z.null()`. */
  schema: TSchema;
}

/**
 * One operation of the /v1 API: everything the client, the mock, the reference service and the OpenAPI
 * document need to agree on. The type parameters keep each schema's precise type, so that `BodyOf`,
 * `ResponseOf` and friends resolve per operation.
 */
export interface Operation<
  TPathParams extends z.ZodMiniObject | null = z.ZodMiniObject | null,
  TQuery extends z.ZodMiniObject | null = z.ZodMiniObject | null,
  TBody extends z.ZodMiniType | null = z.ZodMiniType | null,
  TSuccess extends z.ZodMiniType | null = z.ZodMiniType | null,
> {
  /** The spec's name, also the OpenAPI `operationId`. */
  operationId: string;
  group: OperationGroup;
  method: HttpMethod;
  /** OpenAPI path template relative to `{base_url}`, e.g. `/v1/workspace/webhooks/{id}`. */
  path: string;
  /** Strict object of the path template's parameters (all strings); `null` when the path has none. */
  pathParams: TPathParams;
  /** Strict object of query parameters as they arrive (strings); `null` when the operation takes none. */
  query: TQuery;
  /** `null`: the operation takes no body. */
  body: TBody;
  success: OperationSuccess<TSuccess>;
  /** Refusal statuses this operation can answer; each comes with the error body. */
  errors: readonly number[];
  permission: Permission;
  action: Action;
  flags: OperationFlags;
  /** One line on what the operation does. */
  summary: string;
}

/** Identity function that keeps the literal type of an operation (method, path, status, schemas). */
export function defineOperation<const T extends Operation>(op: T): T {
  return op;
}
