import type { OperationId, Operations, ResponseOf } from '@svc-kit/contract';
import type { OutputOf } from '../http/schema.js';
import type { IdSource } from '../random/ids.js';
import type { SandboxStore } from '../state/model.js';

/** What an operation's behaviour receives: validated input (defaults applied) and the sandbox. */
export interface OperationCall<Id extends OperationId> {
  params: OutputOf<Operations[Id]['pathParams']>;
  query: OutputOf<Operations[Id]['query']>;
  body: OutputOf<Operations[Id]['body']>;
  store: SandboxStore;
  now: number;
  ids: IdSource;
  /** createWebhook admits loopback receivers (the test asked for them: `delivery.allowLoopback`). */
  allowLoopbackReceivers?: boolean;
}

export interface Answer<Id extends OperationId> {
  status: Operations[Id]['success']['status'];
  body: ResponseOf<Id>;
}

/** The sandbox's model of one operation. Refuses by throwing a `Refusal`. Synchronous, so one call's
 * reads and writes cannot interleave with another's. */
export type Behaviour<Id extends OperationId> = (call: OperationCall<Id>) => Answer<Id>;

/** One behaviour per operation of the contract: the type fails to compile when one is missing. */
export type Behaviours = { [Id in OperationId]: Behaviour<Id> };
