/**
 * The permissions the operations of this contract require (spec part 5, rule 6). Every name has the form
 * `service:<area>:<level>`; a session or an API key must hold the operation's permission.
 */
export const PERMISSIONS = [
  'service:workspace:admin',
  'service:contacts:read',
  'service:contacts:manage',
  'service:contacts:trust',
  'service:messages:send',
  'service:identities:read',
  'service:identities:manage',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/** The audit actions the operations of this contract record (spec part 4). */
export const ACTIONS = [
  'webhook:read',
  'webhook:create',
  'webhook:manage',
  'webhook:delete',
  'contact:read',
  'contact:write',
  'contact:trust',
  'message:send',
  'identity:read',
  'integration:write',
] as const;

export type Action = (typeof ACTIONS)[number];
