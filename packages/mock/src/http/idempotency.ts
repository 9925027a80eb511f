import { invalid, Refusal } from './refusal.js';

/** A repeat within 24 hours answers like the first call (spec part 8). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Same bound as the service: keys are opaque, but not unbounded. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export interface RememberedAnswer {
  status: number;
  body: unknown;
}

interface Entry {
  fingerprint: string;
  at: number;
  answer: RememberedAnswer;
}

/** JSON with object keys sorted, so that `{a,b}` and `{b,a}` are the same arguments. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** "The same arguments": the operation, its path parameters, its query and its parsed body (defaults applied). */
export function argumentsFingerprint(args: {
  operationId: string;
  params: unknown;
  query: unknown;
  body: unknown;
}): string {
  return canonicalJson(args);
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
 * Only successful answers are remembered: a refused call leaves the key free for a retry, as in the service,
 * where the refusal rolls the key claim back.
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
