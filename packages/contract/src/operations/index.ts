import type * as z from 'zod/mini';
import {
  approveContact,
  blockContact,
  callContactTool,
  listContacts,
  listContactTools,
  notifyAcceptance,
  refreshContact,
  rejectContact,
  removeContact,
  requestContact,
  setPetname,
  setTrust,
  unblockContact,
  updateContact,
} from './contacts.js';
import type { Operation } from './define.js';
import {
  authorizeIntegration,
  createIntegration,
  deleteIntegration,
  getExposure,
  listIntegrations,
  setExposure,
} from './integrations.js';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  setWebhookStatus,
} from './webhooks.js';

/** The operations of the contract, keyed by the spec's operation name. */
export const operations = {
  listWebhooks,
  createWebhook,
  rotateWebhookSecret,
  setWebhookStatus,
  deleteWebhook,
  listWebhookDeliveries,
  listContacts,
  requestContact,
  updateContact,
  removeContact,
  approveContact,
  rejectContact,
  notifyAcceptance,
  listContactTools,
  callContactTool,
  blockContact,
  unblockContact,
  setPetname,
  refreshContact,
  setTrust,
  listIntegrations,
  createIntegration,
  authorizeIntegration,
  getExposure,
  setExposure,
  deleteIntegration,
} as const satisfies Record<string, Operation>;

export type Operations = typeof operations;
export type OperationId = keyof Operations;

/** Every operation, in the spec's order. */
export const operationList: readonly Operations[OperationId][] = Object.values(operations);

type InputOf<S> = S extends z.ZodMiniType ? z.input<S> : undefined;
type OutputOf<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

/** Path parameters of an operation; `undefined` when its path has none. */
export type PathParamsOf<Id extends OperationId> = InputOf<Operations[Id]['pathParams']>;
/** Query parameters a caller passes (numbers may be given as numbers); `undefined` when there are none. */
export type QueryOf<Id extends OperationId> = InputOf<Operations[Id]['query']>;
/** The request body a caller passes (defaults may be left out); `undefined` when the operation takes none. */
export type BodyOf<Id extends OperationId> = InputOf<Operations[Id]['body']>;
/** The parsed success answer; `undefined` for a 204, `null` for a 200 with a null body. */
export type ResponseOf<Id extends OperationId> = OutputOf<Operations[Id]['success']['schema']>;
/** The success status of an operation. */
export type SuccessStatusOf<Id extends OperationId> = Operations[Id]['success']['status'];
/** The refusal statuses an operation can answer. */
export type ErrorStatusOf<Id extends OperationId> = Operations[Id]['errors'][number];

export function isOperationId(value: string): value is OperationId {
  return Object.hasOwn(operations, value);
}
