import type { OperationId } from '../operations/index.js';
import { contactsExamples } from './contacts.js';
import { integrationsExamples } from './integrations.js';
import type { OperationExample } from './types.js';
import { webhooksExamples } from './webhooks.js';

export type {
  ExampleAnswer,
  ExampleAuth,
  ExampleRequest,
  OperationExample,
  RefusalExample,
} from './types.js';

/**
 * One worked example per operation: a call that succeeds, its answer, and the usual refusals. Keyed by
 * operationId, so a new operation does not type-check until it has one. The OpenAPI document carries
 * them (`withOperationExamples`), the docs show them, and the docs tests run every call against the mock.
 */
export const operationExamples: Readonly<Record<OperationId, OperationExample>> = {
  ...webhooksExamples,
  ...contactsExamples,
  ...integrationsExamples,
};
