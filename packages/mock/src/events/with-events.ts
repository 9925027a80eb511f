import type { OperationId } from '@svc-kit/contract';
import type { UntypedBehaviour } from '../http/route.js';
import type { SandboxStore } from '../state/model.js';
import { type NewEvent, observeOperation } from './operation-events.js';

/** Where the events of an operation go: recorded with the change, in the same synchronous step. */
export type EventSink = (store: SandboxStore, now: number, event: NewEvent) => void;

/**
 * The behaviours, each also recording the event its change makes, as the service records it in the
 * change's transaction: only when the operation succeeds (a refusal records nothing), stamped with the
 * call's time. A replayed idempotent call does not run its behaviour, so it records nothing either.
 * `extra` is merged into every call (the sandbox's receiver policy for createWebhook).
 */
export function withEvents(
  table: Record<OperationId, UntypedBehaviour>,
  sink: EventSink,
  extra: Record<string, unknown>,
): Record<OperationId, UntypedBehaviour> {
  const wrapped = {} as Record<OperationId, UntypedBehaviour>;
  for (const [operationId, behaviour] of Object.entries(table) as [OperationId, UntypedBehaviour][]) {
    wrapped[operationId] = (call) => {
      const events = observeOperation(operationId, call);
      const answer = behaviour({ ...call, ...extra });
      if (events) for (const event of events(answer.body)) sink(call.store, call.now, event);
      return answer;
    };
  }
  return wrapped;
}
