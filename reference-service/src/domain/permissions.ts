import { PERMISSIONS, type Permission } from '@svc-kit/contract';

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/**
 * What a key may do: its scopes intersected with what its minting member holds today. A key can never do
 * more than its member, even if the member loses a permission after minting.
 */
export function keyPermissions(
  memberPermissions: readonly string[],
  scopes: readonly string[],
): Set<Permission> {
  const held = new Set(memberPermissions);
  return new Set(scopes.filter((scope) => isPermission(scope) && held.has(scope)) as Permission[]);
}

export function sessionPermissions(memberPermissions: readonly string[]): Set<Permission> {
  return new Set(memberPermissions.filter(isPermission));
}

/** Scopes asked for at minting that the member does not hold; minting is refused when any is left. */
export function scopesBeyondMember(
  memberPermissions: readonly string[],
  requested: readonly string[],
): string[] {
  const held = new Set(memberPermissions);
  return requested.filter((scope) => !held.has(scope));
}
