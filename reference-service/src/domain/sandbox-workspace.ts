/**
 * The seeded sandbox's workspace (features/sandbox/seed.ts makes it): the operator's own, exempt from the
 * per-workspace budgets that bound what a tenant can make the service send (test events, delivery pace).
 */
export const SANDBOX_WORKSPACE_ID = 'ws_sandbox';
