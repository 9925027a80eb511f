import { isRememberedRefusal, type Operation, type OperationId, toColonPath } from '@svc-kit/contract';
import { delay, HttpHandler, HttpResponse, type HttpResponseResolver } from 'msw';
import type { Injections } from '../faults/injection.js';
import type { IdSource } from '../random/ids.js';
import type { SandboxStore } from '../state/model.js';
import { authorize } from './auth.js';
import { argumentsFingerprint, type IdempotencyLedger, idempotencyKeyOf } from './idempotency.js';
import { readInput } from './input.js';
import { drawLatency, type Latency } from './latency.js';
import { Refusal } from './refusal.js';
import { errorResponse, successResponse } from './respond.js';
import { describeIssues } from './schema.js';

/** A behaviour seen from the pipeline, which has already validated the input against the same schemas. */
export type UntypedBehaviour = (call: {
  params: unknown;
  query: unknown;
  body: unknown;
  store: SandboxStore;
  now: number;
  ids: IdSource;
}) => { status: number; body: unknown };

/** What the handlers read at call time: `reset()` and `seed()` swap these, the handlers stay the same. */
export interface SandboxRuntime {
  store(): SandboxStore;
  ids(): IdSource;
  now(): number;
  latency(): Latency | undefined;
  injections: Injections;
  ledger: IdempotencyLedger;
  /** `https://api.example.test`, compared with a session call's `Origin`. */
  origin: string;
}

/** A sandbox bug, never the caller's: the answer it built does not match the contract. */
function checkAnswer(op: Operation, answer: { status: number; body: unknown }): void {
  if (answer.status !== op.success.status) {
    throw new Error(`${op.operationId} answered ${answer.status}, the contract says ${op.success.status}`);
  }
  if (op.success.schema === null) return;
  const result = op.success.schema.safeParse(answer.body);
  if (!result.success) {
    throw new Error(
      `${op.operationId} built an answer outside the contract: ${describeIssues(result.error.issues)}`,
    );
  }
}

/**
 * One msw handler per operation, in the service's order of work: latency, injected failure, credentials
 * and policy, input validation, idempotency, then the operation's behaviour. Every answer carries a fresh
 * request id, in `x-request-id` and in error bodies.
 */
export function operationHandler(
  base: string,
  op: Operation,
  behaviour: UntypedBehaviour,
  runtime: SandboxRuntime,
): HttpHandler {
  // HEAD is a GET without the body, as the service (and HTTP) answers it: status and headers alike.
  const method = op.method === 'GET' ? /^(GET|HEAD)$/ : op.method;
  return new HttpHandler(method, `${base}${toColonPath(op.path)}`, async (info) => {
    const answer = await answerOf(info);
    if (info.request.method !== 'HEAD' || answer.type === 'error') return answer;
    return new HttpResponse(null, { status: answer.status, headers: answer.headers });
  });

  async function answerOf({ request, params, cookies }: Parameters<HttpResponseResolver>[0]) {
    const ids = runtime.ids();
    const requestId = ids.requestId();
    const wait = drawLatency(runtime.latency(), ids.between);
    if (wait > 0) await delay(wait);
    const injected = runtime.injections.take(op.operationId as OperationId);
    if (injected?.kind === 'network') return HttpResponse.error();
    if (injected) return errorResponse(requestId, injected);
    try {
      authorize(op, request, cookies, runtime.store(), runtime.origin);
      const input = await readInput(op, request, params);
      // Read after the body has arrived: a reset() meanwhile must not leave the call writing to the old state.
      const store = runtime.store();
      const now = runtime.now();
      const key = op.flags.idempotent ? idempotencyKeyOf(request) : undefined;
      const fingerprint =
        key === undefined ? '' : argumentsFingerprint({ operationId: op.operationId, ...input });
      if (key !== undefined) {
        const first = runtime.ledger.recall(key, fingerprint, now);
        if (first && first.status >= 400) {
          const { code, message } = (first.body as { error: { code: string; message: string } }).error;
          return errorResponse(
            requestId,
            { status: first.status, code, message },
            { 'idempotent-replayed': 'true' },
          );
        }
        if (first)
          return successResponse(requestId, first.status, first.body, { 'idempotent-replayed': 'true' });
      }
      let answer: { status: number; body: unknown };
      try {
        answer = behaviour({ ...input, store, now, ids });
      } catch (error) {
        // A final refusal is the call's first answer: a repeat with the same key gets it again.
        if (key !== undefined && error instanceof Refusal && isRememberedRefusal(error.status)) {
          runtime.ledger.remember(key, fingerprint, now, {
            status: error.status,
            body: { error: { code: error.code, message: error.message } },
          });
        }
        throw error;
      }
      checkAnswer(op, answer);
      if (key !== undefined) runtime.ledger.remember(key, fingerprint, now, answer);
      return successResponse(requestId, answer.status, answer.body);
    } catch (error) {
      if (error instanceof Refusal) {
        return errorResponse(requestId, {
          status: error.status,
          code: error.code,
          message: error.message,
          retryAfter: error.retryAfter,
        });
      }
      return errorResponse(requestId, {
        status: 500,
        code: 'internal_error',
        message: `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
}
