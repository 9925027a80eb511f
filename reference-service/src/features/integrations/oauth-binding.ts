import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readCookie } from '../../http/principal.js';

/**
 * Binds an OAuth ceremony to the browser that started it (RFC 9700 4.7; attack finding F7). The answer
 * that hands out an `authorization_url` also sets a cookie holding a hash of the URL's `state`; a browser
 * arriving at the callback must carry the hash of the state it brings. Another person's browser, sent the
 * URL by whoever started the ceremony, has no such cookie, so their consent cannot land in a stranger's
 * integration. `__Host-` keeps other origins from planting it; `SameSite=Lax` lets it ride the top-level
 * redirect back from the upstream, which the session's `Strict` cookie does not.
 */
export const OAUTH_BINDING_COOKIE = '__Host-svc_oauth';
const BINDING_LIFETIME_S = 3600;

/** Set and cleared with the same attributes: a browser only replaces a cookie of the same path. */
const bindingCookie = (value: string, maxAgeS: number) =>
  `${OAUTH_BINDING_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}`;

export function stateBinding(state: string): string {
  return hash('sha256', `oauth-state\n${state}`, 'base64url');
}

/**
 * The `state` of an answer carrying an authorization URL, read from the serialized JSON: a string, or the
 * bytes an earlier hook encoded it to (http/conditional-get.ts, on a GET).
 */
function stateOfPayload(payload: unknown): string | undefined {
  const marker = '"authorization_url"';
  const text =
    typeof payload === 'string'
      ? payload
      : Buffer.isBuffer(payload) && payload.includes(marker)
        ? payload.toString('utf8')
        : undefined;
  if (text === undefined || !text.includes(marker)) return undefined;
  try {
    const url = (JSON.parse(text) as { authorization_url?: unknown }).authorization_url;
    return typeof url === 'string' ? (new URL(url).searchParams.get('state') ?? undefined) : undefined;
  } catch {
    return undefined;
  }
}

/** onSend: an answer handing out an authorization URL sets the binding of its state. */
export async function setBindingCookie(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const state = reply.statusCode < 300 ? stateOfPayload(payload) : undefined;
  // Fastify adds a `set-cookie` to those already set, never in their place.
  if (state !== undefined) reply.header('set-cookie', bindingCookie(stateBinding(state), BINDING_LIFETIME_S));
  return payload;
}

/** Whether the request carries the binding of `state` in its cookies. */
export function carriesBinding(request: FastifyRequest, state: string): boolean {
  return readCookie(request.headers.cookie, OAUTH_BINDING_COOKIE) === stateBinding(state);
}

export function clearBindingCookie(reply: FastifyReply): void {
  reply.header('set-cookie', bindingCookie('', 0));
}
