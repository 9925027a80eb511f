import {
  IDEMPOTENCY_WINDOW_MS,
  idempotencyArgumentsText,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '@svc-kit/contract';
import { invalid, Refusal } from './refusal.js';

export interface RememberedAnswer {
  status: number;
  body: unknown;
}

interface Entry {
  fingerprint: string;
  at: number;
  answer: RememberedAnswer;
}

/** "The same arguments": the contract's canonical text of the operation, path parameters, query and body. */
export function argumentsFingerprint(args: {
  operationId: string;
  params: unknown;
  query: unknown;
  body: unknown;
}): string {
  return idempotencyArgumentsText(args);
}

/** The `Idempotency-Key` header of a request, checked; `undefined` when absent. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const key = request.headers.get('idempotency-key');
  if (key === null) return undefined;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw invalid(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  return key;
}

/**
 * Remembered answers of idempotent calls, one workspace-wide key space (the sandbox has one workspace).
 * The first answer is remembered when it is a success or a final refusal of the operation (the contract's
 * `isRememberedRefusal`: 400, 403, 404); a 429, a 5xx or an injected failure leaves the key free.
 */
export class IdempotencyLedger {
  readonly #entries = new Map<string, Entry>();

  /** The first answer for this key, or `undefined` when the key is new (or older than 24 hours). */
  recall(key: string, fingerprint: string, now: number): RememberedAnswer | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (now - entry.at >= IDEMPOTENCY_WINDOW_MS) {
      this.#entries.delete(key);
      return undefined;
    }
    if (entry.fingerprint !== fingerprint) {
      throw new Refusal(
        'idempotency_mismatch',
        'this Idempotency-Key was already used with different arguments in the last 24 hours',
      );
    }
    return { status: entry.answer.status, body: structuredClone(entry.answer.body) };
  }

  remember(key: string, fingerprint: string, now: number, answer: RememberedAnswer): void {
    this.#entries.set(key, {
      fingerprint,
      at: now,
      answer: { status: answer.status, body: structuredClone(answer.body) },
    });
  }

  clear(): void {
    this.#entries.clear();
  }
}
