import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/domain/errors.js';
import { WORKSPACE_BUCKETS_CAP, WorkspaceRequests } from '../../src/domain/workspace-requests.js';

/** Takes until refused; how many were taken. */
function drain(requests: WorkspaceRequests, workspaceId: string, now: number): number {
  for (let taken = 0; ; taken++) {
    try {
      requests.take(workspaceId, now);
    } catch (error) {
      expect(error).toBeInstanceOf(RateLimitedError);
      return taken;
    }
  }
}

describe('the workspaces’ request buckets in memory', () => {
  it('stay within their cap however many workspaces call', () => {
    const requests = new WorkspaceRequests();
    const start = Date.now();
    // All at one instant: no bucket is full again, so the cap holds by forgetting the least recently used.
    for (let i = 0; i < 5 * WORKSPACE_BUCKETS_CAP; i++) requests.take(`ws_${i}`, start);
    expect(requests.size).toBeLessThanOrEqual(WORKSPACE_BUCKETS_CAP);
    expect(requests.size).toBeGreaterThan(0.8 * WORKSPACE_BUCKETS_CAP);
  });

  it('forget full buckets first, so a workspace in debt keeps its debt', () => {
    const cap = 100;
    const requests = new WorkspaceRequests(50, cap);
    const start = Date.now();
    expect(drain(requests, 'ws_flooder', start)).toBe(300);
    // Every other workspace called once since; a second later each is full again, the flooder is not.
    for (let i = 0; i < cap - 1; i++) requests.take(`ws_${i}`, start);
    expect(requests.size).toBe(cap);
    requests.take('ws_new', start + 1_000);
    expect(requests.size).toBe(2);
    expect(drain(requests, 'ws_flooder', start + 1_000)).toBe(50);
  });

  it('past the cap with none full, forget the least recently used', () => {
    const requests = new WorkspaceRequests(50, 100);
    const start = Date.now();
    for (let i = 0; i < 100; i++) requests.take(`ws_${i}`, start);
    // ws_0 called again: the most recent now; ws_1 is the oldest.
    drain(requests, 'ws_0', start);
    requests.take('ws_new', start);
    expect(requests.size).toBe(91);
    expect(drain(requests, 'ws_0', start)).toBe(0);
    // Forgotten, ws_1 starts full again.
    expect(drain(requests, 'ws_1', start)).toBe(300);
  });
});
