import assert from 'node:assert/strict';
import type { ClaimedDelivery } from '../store/queries/deliveries-claim.js';

/** A claimed row waiting for a slot, with its endpoint's secrets already decrypted. */
export interface Ready {
  row: ClaimedDelivery;
  claimedAt: number;
  secret: string;
  previousSecret: string | null;
}

/**
 * `open`: rows are added by claims and taken by free slots. `released`: the worker stopped; every waiting
 * row was handed back to the caller (to be released to the database, never dialled) and nothing may be added.
 */
export type ClaimedQueueMode = 'open' | 'released';

/**
 * The rows one worker claimed ahead of its free slots, oldest first. Every row in here is committed as
 * `sending` and was never dialled: whatever leaves it other than through `take` must go back to the
 * database unsent, which is what keeps "exactly one attempt" true.
 */
export class ClaimedQueue {
  #mode: ClaimedQueueMode = 'open';
  #rows: Ready[] = [];

  get mode(): ClaimedQueueMode {
    return this.#mode;
  }

  get size(): number {
    return this.#rows.length;
  }

  add(rows: readonly Ready[]): void {
    assert.equal(this.#mode, 'open', 'rows claimed after the queue was released');
    this.#rows.push(...rows);
  }

  /**
   * The oldest row claimed at or after `freshSince`, for a free slot. Older rows met on the way are moved
   * to `stale`: dialled now they could outlive their lease on the wire.
   */
  take(freshSince: number, stale: ClaimedDelivery[]): Ready | undefined {
    for (let next = this.#rows.shift(); next !== undefined; next = this.#rows.shift()) {
      if (next.claimedAt >= freshSince) return next;
      stale.push(next.row);
    }
    return undefined;
  }

  /** Takes out the rows of one endpoint (it stopped being dialled, or entered a failure run). */
  takeEndpoint(endpointId: string): ClaimedDelivery[] {
    const held: ClaimedDelivery[] = [];
    const kept: Ready[] = [];
    for (const claimed of this.#rows) {
      if (claimed.row.endpoint_id === endpointId) held.push(claimed.row);
      else kept.push(claimed);
    }
    if (held.length > 0) this.#rows = kept;
    return held;
  }

  /** Ends the queue: returns every waiting row, and refuses rows from then on. */
  release(): ClaimedDelivery[] {
    assert.equal(this.#mode, 'open', 'the queue was released twice');
    this.#mode = 'released';
    const rows = this.#rows.map((claimed) => claimed.row);
    this.#rows = [];
    return rows;
  }
}
