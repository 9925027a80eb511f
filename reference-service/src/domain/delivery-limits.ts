import { budget } from './door-limits.js';

/**
 * The pace of webhook deliveries, decided when an event fans out (store/queries/fan-out.ts): every delivery
 * row takes a token of its workspace's bucket, and a row its workspace lets go at once a token of its
 * destination host's bucket, in the database (`outbound_budgets`, like the door limits, so the pace holds
 * across instances). A row that finds a bucket empty is not dropped: it is due later, when the bucket will
 * have refilled to it. The numbers and their reasons are on the open-choices page (Webhook delivery).
 */

const SECOND = 1_000;

export const DELIVERIES_PER_WORKSPACE = budget(200, SECOND / 20, 'deliveries of this workspace');

/**
 * How far a workspace may be behind its pace (its bucket's debt, in time of the pace): past it, an operation
 * that would record an event for it is refused with 429 until the debt is back under
 * (store/queries/backlog.ts); nothing queued is dropped.
 */
export const WORKSPACE_BACKLOG_MS = 5 * 60 * SECOND;

/**
 * How far behind its pace a workspace may be for an event its peers cause (a `/peer/v1` verb): half of
 * WORKSPACE_BACKLOG_MS. Strangers alone then never bring a workspace to the bound at which its owner's
 * own operations are refused, however many identities it has. Why half: open-choices page.
 */
export const PEER_BACKLOG_MS = WORKSPACE_BACKLOG_MS / 2;

/**
 * Deliveries to one destination host, from every workspace together: wider than one workspace's pace, so one
 * tenant never spends a host shared with others.
 */
export const DELIVERIES_PER_HOST = budget(500, SECOND / 50, 'deliveries to this host');

/** The buckets' names in `outbound_budgets`. */
export const WORKSPACE_PACE_PREFIX = 'deliveries-workspace:';
export const HOST_PACE_PREFIX = 'deliveries-host:';
