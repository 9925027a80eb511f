import type { OutboundLimit } from '@svc-kit/contract';
import { guessBucket } from '../../domain/sign-in-limits.js';
import { spendGuess } from '../../http/sign-in-guard.js';
import type { Db } from '../../store/db.js';
import { SANDBOX_WORKSPACE_ID } from './seed.js';

/**
 * Test events per workspace: 10, then one every 10 seconds. Each fans out one POST per endpoint to hosts
 * the workspace names, so an unbudgeted trigger in a sandbox open to strangers is an HTTP amplifier.
 */
export const TEST_EVENTS: OutboundLimit = {
  capacity: 10,
  perMs: 1 / 10_000,
  what: 'test events of this workspace',
};

/**
 * Spends one test event of the workspace (429 with `retry_after` when none is left). The seeded sandbox
 * workspace is the operator's own and is exempt: benches and `svc-webhooks trigger` fire it in bulk.
 */
export async function spendTestEvent(db: Db, workspaceId: string, now: number): Promise<void> {
  if (workspaceId === SANDBOX_WORKSPACE_ID) return;
  await spendGuess(db, [[guessBucket('test-events', workspaceId), TEST_EVENTS]], now);
}
