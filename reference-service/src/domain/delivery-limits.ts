import type { OutboundLimit } from '@svc-kit/contract';

/**
 * The pace of webhook deliveries, decided when an event fans out (store/queries/fan-out.ts): every delivery
 * row takes a token of its workspace's bucket, and a row its workspace lets go at once a token of its
 * destination host's bucket, in the database (`outbound_budgets`, like the door limits, so the pace holds
 * across instances). A row that finds a bucket empty is not dropped: it is due later, when the bucket will
 * have refilled to it. The numbers and their reasons are on the open-choices page (Webhook delivery).
 */

const SECOND = 1_000;

/**
 * Deliveries of one workspace, to all its endpoints: 200 at once, then 20 a second. Ten events to twenty
 * endpoints go out at once; a tenant sending an event a second to every endpoint it may have is not slowed.
 */
export const DELIVERIES_PER_WORKSPACE: OutboundLimit = {
  capacity: 200,
  perMs: 20 / SECOND,
  what: 'deliveries of this workspace',
};

/**
 * How far a workspace may be behind its pace: its delivery bucket's debt (the rows already waiting for it)
 * in time of the pace, 5 minutes (6,000 rows). Past it, an operation that would record an event for the
 * workspace is refused with 429 until the debt is back under (store/queries/backlog.ts); nothing queued
 * is dropped. The pace bounds what leaves, this bounds what is stored, and keeps a delivery of an
 * accepted event from waiting hours behind its own workspace's flood. Why 5 minutes: open-choices page.
 */
export const WORKSPACE_BACKLOG_MS = 5 * 60 * SECOND;

/**
 * How far behind its pace a workspace may be for an event its peers cause (a `/peer/v1` verb): half of
 * WORKSPACE_BACKLOG_MS. Strangers alone then never bring a workspace to the bound at which its owner's
 * own operations are refused, however many identities it has. Why half: open-choices page.
 */
export const PEER_BACKLOG_MS = WORKSPACE_BACKLOG_MS / 2;

/**
 * Deliveries to one destination host, from every workspace together: 500 at once, then 50 a second. Wider
 * than one workspace's pace, so that one tenant alone never spends a host shared with others; narrow
 * enough that the service cannot be turned into a flood at someone else's server.
 */
export const DELIVERIES_PER_HOST: OutboundLimit = {
  capacity: 500,
  perMs: 50 / SECOND,
  what: 'deliveries to this host',
};

/** The buckets' names in `outbound_budgets`. */
export const WORKSPACE_PACE_PREFIX = 'deliveries-workspace:';
export const HOST_PACE_PREFIX = 'deliveries-host:';
