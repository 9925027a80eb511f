import type { Permission } from '@svc-kit/contract';
import { PortalError, problemFromBody } from './problem.js';

// The service's own account routes (not part of the contract; see docs/guide/reference-service.md).

export interface SessionInfo {
  member: { id: string; email: string; permissions: Permission[]; mfa_enrolled: boolean; owner: boolean };
  workspace: { id: string; name: string; webhooks_enabled: boolean };
  identities: { slug: string }[];
  expires_at: number;
  stepped_up_until: number | null;
}

/**
 * The member the sandbox seeds when it starts (src/features/sandbox/seed.ts): only a service running the
 * sandbox has it, and `npm run sandbox -- totp` on that machine prints its current code.
 */
export const SANDBOX_OWNER_ID = 'mem_sandbox';

export interface MfaSetup {
  otpauth_uri: string;
  secret: string;
  qr_svg: string;
}

export interface KeyRow {
  id: string;
  name: string;
  scopes: Permission[];
  created_at: number;
  revoked_at: number | null;
  member_id: string;
}

export interface MintedKey {
  id: string;
  name: string;
  scopes: Permission[];
  created_at: number;
  api_key: string;
}

export interface MemberRow {
  id: string;
  email: string;
  permissions: Permission[];
  mfa_enrolled: boolean;
  owner: boolean;
  created_at: number;
  invited: boolean;
}

/** One call to an account route; a refusal becomes a `PortalError` carrying the error body's words. */
export async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (cause) {
    throw new PortalError({
      status: undefined,
      code: undefined,
      message: `the service could not be reached (${String(cause)})`,
      requestId: undefined,
      retryAfter: undefined,
    });
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) throw new PortalError(problemFromBody(response.status, response.headers, json));
  return json as T;
}

export const account = {
  session: () => send<SessionInfo>('GET', '/v1/session'),
  /** Whether a session is open (200 either way) and the origin the portal's calls must come from. */
  state: () => send<{ origin: string; session: SessionInfo | null }>('GET', '/v1/session/state'),
  signUp: (body: { email: string; password: string; workspace_name?: string }) =>
    send<SessionInfo>('POST', '/v1/accounts', body),
  logIn: (body: { email: string; password: string }) => send<unknown>('POST', '/v1/sessions', body),
  logOut: () => send<undefined>('DELETE', '/v1/session'),
  startMfa: () => send<MfaSetup>('POST', '/v1/session/mfa'),
  confirmMfa: (code: string) =>
    send<{ recovery_codes: string[]; stepped_up_until: number }>('POST', '/v1/session/mfa/confirm', { code }),
  changePassword: (body: { current_password: string; new_password: string }) =>
    send<{ sessions_ended: number }>('POST', '/v1/session/password', body),
  regenerateRecoveryCodes: () => send<{ recovery_codes: string[] }>('POST', '/v1/session/recovery-codes'),
  stepUp: (proof: { code: string } | { recovery_code: string }) =>
    send<{ stepped_up_until: number }>('POST', '/v1/sessions/step-up', proof),
  listKeys: () => send<{ keys: KeyRow[] }>('GET', '/v1/workspace/keys'),
  mintKey: (body: { name: string; scopes: Permission[] }) =>
    send<MintedKey>('POST', '/v1/workspace/keys', body),
  revokeKey: (id: string) => send<undefined>('DELETE', `/v1/workspace/keys/${encodeURIComponent(id)}`),
  listMembers: () => send<{ members: MemberRow[] }>('GET', '/v1/workspace/members'),
  invite: (body: { email: string; permissions: Permission[] }) =>
    send<{ member: MemberRow; invite_token: string }>('POST', '/v1/workspace/members', body),
  acceptInvite: (body: { token: string; password: string }) =>
    send<unknown>('POST', '/v1/invites/accept', body),
  removeMember: (id: string) => send<undefined>('DELETE', `/v1/workspace/members/${encodeURIComponent(id)}`),
  setWebhooksEnabled: (enabled: boolean) =>
    send<{ id: string; name: string; webhooks_enabled: boolean }>('PATCH', '/v1/workspace', {
      webhooks_enabled: enabled,
    }),
  /** `endpoint`: to that endpoint only (if active and it takes the type); absent: every endpoint. */
  sendTestEvent: (body: { type: string; identity?: string; endpoint?: string }) =>
    send<unknown>('POST', '/sandbox/events', body),
};

/** An identity's own contact card (a service route, not part of the contract). */
export function identityCard(slug: string) {
  return send<{ slug: string; fingerprint: string; card: string }>(
    'GET',
    `/v1/identities/${encodeURIComponent(slug)}/card`,
  );
}
