import {
  limitRefusal,
  type OutboundBucket,
  type OutboundLimit,
  outboundTokens,
  takeOutboundToken,
} from '@svc-kit/contract';
import { RateLimitedError } from './errors.js';

/**
 * Authenticated calls a workspace may make to this instance (our choice, `SVC_WORKSPACE_REQUEST_RATE`):
 * 50 a second, with a burst of six seconds' worth. Stripe allows 25 a second in test mode and 100 live; the
 * portal's busiest page makes a dozen calls on load and then one every 1.5 s per open live log.
 */
export const DEFAULT_WORKSPACE_REQUEST_RATE = 50;
const BURST_SECONDS = 6;

/** Workspaces remembered at most; past it full buckets go first, then the least recently used. */
export const WORKSPACE_BUCKETS_CAP = 10_000;

/** The budget of `rate` requests a second (a burst of six seconds' worth), as the contract's buckets are. */
export function workspaceRequestLimit(rate: number): OutboundLimit {
  return { capacity: rate * BURST_SECONDS, perMs: rate / 1000, what: 'requests from this workspace' };
}

/**
 * One token bucket per workspace, in this process's memory: the load it guards is this instance's (its
 * event loop, its PGlite thread), and a statement per call to share it across instances would cost every
 * call a database round trip. Not a guessing limit: a restart forgets it, and nothing relies on that.
 */
export class WorkspaceRequests {
  readonly limit: OutboundLimit;
  /** In least-recently-used order: a take moves its workspace to the end. */
  private readonly buckets = new Map<string, OutboundBucket>();
  /** The workspace of each key proven lately (at most `cap`, the oldest forgotten first). */
  private readonly keyWorkspaces = new Map<string, string>();

  constructor(
    rate = DEFAULT_WORKSPACE_REQUEST_RATE,
    private readonly cap = WORKSPACE_BUCKETS_CAP,
  ) {
    this.limit = workspaceRequestLimit(rate);
  }

  /** Workspaces held now (for tests of the bound). */
  get size(): number {
    return this.buckets.size;
  }

  /** Spends one of the workspace's requests, or throws the 429 saying when one is back. */
  take(workspaceId: string, now: number): void {
    const bucket = this.buckets.get(workspaceId);
    const taken = takeOutboundToken(bucket, this.limit, now);
    if (!taken.ok) throw this.refusal(taken.waitMs);
    this.buckets.delete(workspaceId);
    if (bucket === undefined && this.buckets.size >= this.cap) this.makeRoom(now);
    this.buckets.set(workspaceId, taken.next);
  }

  /** Remembers the workspace of a key whose secret was just proven, for `refuseSpentKey`. */
  rememberKey(keyId: string, workspaceId: string): void {
    if (this.keyWorkspaces.get(keyId) === workspaceId) return;
    if (this.keyWorkspaces.size >= this.cap)
      this.keyWorkspaces.delete(this.keyWorkspaces.keys().next().value!);
    this.keyWorkspaces.set(keyId, workspaceId);
  }

  /**
   * The 429 of a key whose workspace has no request left, before the key is looked up: on PostgreSQL the
   * lookup is a statement, which a flood refused after it would still make at its own rate. Spends nothing.
   */
  refuseSpentKey(keyId: string, now: number): void {
    const workspaceId = this.keyWorkspaces.get(keyId);
    const bucket = workspaceId === undefined ? undefined : this.buckets.get(workspaceId);
    if (bucket === undefined) return;
    const available = outboundTokens(bucket, this.limit, now);
    if (available < 1) throw this.refusal((1 - available) / this.limit.perMs);
  }

  private refusal(waitMs: number): RateLimitedError {
    const { retryAfter, message } = limitRefusal(this.limit, waitMs);
    return new RateLimitedError(retryAfter, message);
  }

  /**
   * Forgets every full bucket (forgetting one changes nothing: an unknown workspace starts full), then, if
   * that left less than a tenth of the cap free, the least recently used down to nine tenths: a scan of the
   * whole map happens at most once per tenth of the cap of new workspaces.
   */
  private makeRoom(now: number): void {
    for (const [id, bucket] of this.buckets) {
      if (outboundTokens(bucket, this.limit, now) >= this.limit.capacity) this.buckets.delete(id);
    }
    const keep = Math.floor(this.cap * 0.9);
    for (const id of this.buckets.keys()) {
      if (this.buckets.size <= keep) break;
      this.buckets.delete(id);
    }
  }
}
