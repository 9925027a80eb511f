import { hash, randomBytes } from 'node:crypto';
import { domainToUnicode } from 'node:url';
import { budget } from '../../domain/door-limits.js';
import { scopesBeyondMember } from '../../domain/permissions.js';
import { base32Encode } from '../../domain/totp.js';

// The portal's account rules, without I/O (passwords: password-policy.ts).

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * E-mails are compared in NFKC, trimmed and in lower case: `Ann@X.example`, `ann@x.example` and the same
 * address typed with decomposed accents or full-width letters are one account. The domain is a DNS name,
 * and DNS has more spellings of one name: a trailing dot (the root, `x.example.`) and the ASCII form of an
 * international name (`xn--bcher-kva.example` for `bücher.example`); both are written in their one form,
 * the Unicode one that a person reads. A domain IDNA cannot read stays as typed.
 */
export function normalizeEmail(email: string): string {
  const folded = email.normalize('NFKC').trim().toLowerCase();
  // IDNA drops invisible characters: an address holding one is left to be refused, not quietly mapped.
  if (!isEmail(folded)) return folded;
  const at = folded.lastIndexOf('@');
  const domain = folded.slice(at + 1);
  const readable = domain === '' ? '' : domainToUnicode(domain);
  // After IDNA, which reads the ideographic full stop (U+3002) as a dot, a trailing one included.
  const written = readable === '' ? domain : readable.normalize('NFKC');
  return `${folded.slice(0, at)}@${written.replace(/\.+$/, '')}`;
}

/**
 * Deliberately loose: one `@`, something on both sides; no spaces, controls, invisible format characters
 * (zero-width, bidi overrides), private-use, unassigned or lone surrogate code points, which would let two
 * addresses look alike in a members list. Mail is never sent.
 */
export function isEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}

const EMAIL_PART = '[^\\s@\\p{Z}\\p{Cc}\\p{Cf}\\p{Co}\\p{Cn}\\p{Cs}]+';
const EMAIL = new RegExp(`^${EMAIL_PART}@${EMAIL_PART}\\.${EMAIL_PART}$`, 'u');

/** Sign-ups per client address: 5, then one more every 12 minutes (every attempt counts, not only failures). */
export const SIGN_UP_ATTEMPTS = budget(5, 12 * MINUTE, 'sign-ups from this address');
/** Sign-ups from one IPv6 /48, all its /64s together (limitedNetwork in domain/sign-in-limits.ts). */
export const SIGN_UP_NETWORK_ATTEMPTS = budget(20, 3 * MINUTE, 'sign-ups from this network');
/** Wrong invite tokens per client address: 10, then one a minute (tokens carry 256 bits; this is hygiene). */
export const INVITE_GUESSES = budget(10, MINUTE, 'wrong invite tokens from this address');

/** Invites sent per member: 20, then one every 10 minutes (each is a row, and was an e-mail oracle). */
export const INVITES_SENT = budget(20, 10 * MINUTE, 'invites sent by this member');

/**
 * Invites sent in one workspace, by all its members: 50, then one every 10 minutes. The budget per member
 * alone multiplied: every member who joined could invite 20 more (41 members after one acceptance), so
 * the members list grew without bound.
 */
export const WORKSPACE_INVITES_SENT = budget(50, 10 * MINUTE, 'invites sent in this workspace');

/**
 * API keys minted in one workspace, by any of its members: 20, then one every 10 minutes. Each is a row
 * that stays (a revoked key stays listed), and the key list is answered whole: unbounded, one stepped-up
 * session minted hundreds a second. Per workspace, not per member, because members can invite members.
 */
export const KEYS_MINTED = budget(20, 10 * MINUTE, 'API keys minted in this workspace');

/** An invite can be accepted once, within 7 days. */
export const INVITE_LIFETIME_MS = 7 * 24 * HOUR;

export function newInviteToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The row of an invite for `memberId` by `invitedBy`, kept by its token's hash, live for 7 days. */
export function inviteRow(memberId: string, invitedBy: string, token: string, now: number) {
  const expires_at = now + INVITE_LIFETIME_MS;
  return {
    member_id: memberId,
    token_hash: hashToken(token),
    invited_by: invitedBy,
    created_at: now,
    expires_at,
  };
}

/** Tokens, like session cookies, are looked up by a hash: a database leak opens no invite. */
export function hashToken(token: string): string {
  return hash('sha256', token);
}

const RECOVERY_CODE_COUNT = 10;

/** 16 base32 characters (80 random bits), shown in groups of four: `ABCD-EFGH-JKLM-NPQR`. */
function newRecoveryCode(): string {
  return base32Encode(randomBytes(10)).match(/.{4}/g)!.join('-');
}

/** A member's new set of recovery codes: answered once, kept as the hashes only. */
export function newRecoveryCodes(memberId: string): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  return { codes, hashes: codes.map((code) => hashRecoveryCode(memberId, code)) };
}

/** What the person types is forgiven spaces, dashes and case; the hash is of the 16 characters alone. */
export function hashRecoveryCode(memberId: string, code: string): string {
  return hash('sha256', `${memberId}\n${code.replace(/[\s-]/g, '').toUpperCase()}`);
}

export interface MemberStanding {
  id: string;
  owner: boolean;
  permissions: readonly string[];
}

/**
 * Who may remove whom: never oneself (the last admin could lock the workspace), never the owner; the owner
 * may remove anyone else; any other admin only members holding nothing the admin lacks.
 */
export function removalRefusal(actor: MemberStanding, target: MemberStanding): string | undefined {
  if (actor.id === target.id) return 'you cannot remove yourself';
  if (target.owner) return 'the owner of the workspace cannot be removed';
  if (actor.owner) return undefined;
  const beyond = scopesBeyondMember(actor.permissions, target.permissions);
  if (beyond.length > 0) return `only the owner may remove a member holding ${beyond.join(', ')}`;
  return undefined;
}

/**
 * A workspace name as a person wrote it, or a neutral one: the identities' slugs come from it and travel
 * in every contact card, so a default must not hand strangers the e-mail's local part.
 */
export function workspaceNameFor(asked: string | undefined): string {
  return asked?.trim() || 'My workspace';
}

/**
 * The two identities of a new workspace: `<base>-alice` and `<base>-bob`, the base from the workspace name
 * (lower-case letters, digits and dashes) and a random suffix so that slugs stay unique across workspaces.
 */
export function identitySlugsFor(workspaceName: string): [string, string] {
  const base =
    workspaceName
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 16)
      .replace(/-+$/, '') || 'ws';
  // 48 random bits: slugs are unique across workspaces, and many sign-ups share a base ("my-workspace").
  const suffix = randomBytes(6).toString('hex');
  return [`${base}-${suffix}-alice`, `${base}-${suffix}-bob`];
}

/**
 * New TOTP secrets offered to one member (POST /v1/session/mfa): 10, then one a minute. Each draws a QR
 * code and rewrites the member's row; uncounted, one session's loop of them slowed every tenant's calls
 * several times more than a loop of reads did.
 */
export const MFA_SECRETS_OFFERED = budget(10, MINUTE, 'new authenticator secrets of this member');

/**
 * Password changes per member, right current password or wrong: 5, then one every 10 minutes. Each costs two
 * scrypt runs through the process's gate; counting only wrong ones let one signed-in tenant keep the gate
 * full with 409s and right guesses, and every other tenant's log-in waited seconds behind it.
 */
export const PASSWORD_CHANGES = budget(5, 10 * MINUTE, 'password changes of this member');

/**
 * Whose keys a member may revoke, by the rule of removal: their own always; the owner anyone's; any other
 * admin only the keys of members holding nothing the admin lacks (never the owner's).
 */
export function keyRevocationRefusal(actor: MemberStanding, keyOwner: MemberStanding): string | undefined {
  if (actor.id === keyOwner.id || actor.owner) return undefined;
  if (keyOwner.owner) return 'only the owner may revoke the owner’s keys';
  const beyond = scopesBeyondMember(actor.permissions, keyOwner.permissions);
  if (beyond.length > 0) return `only the owner may revoke a key of a member holding ${beyond.join(', ')}`;
  return undefined;
}
