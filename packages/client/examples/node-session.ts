import { Client } from '@svc-kit/client';

/**
 * Signs a member in (`POST /v1/sessions`), steps the session up with a current TOTP code
 * (`POST /v1/sessions/step-up`) and returns the session cookie, `name=value` pairs without attributes.
 */
export async function openSession(
  baseUrl: string,
  email: string,
  password: string,
  totpCode: string,
): Promise<string> {
  const signIn = await fetch(`${baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!signIn.ok) throw new Error(`sign-in refused: ${signIn.status}`);
  const cookie = signIn.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const stepUp = await fetch(`${baseUrl}/v1/sessions/step-up`, {
    method: 'POST',
    // A session call must show it comes from the service's own origin, as a browser's would.
    headers: { 'content-type': 'application/json', cookie, origin: new URL(baseUrl).origin },
    body: JSON.stringify({ code: totpCode }),
  });
  if (!stepUp.ok) throw new Error(`step-up refused: ${stepUp.status}`);
  return cookie;
}

/**
 * A client acting as the signed-in member: `session: true`, with the cookie sent as a header, and the
 * `Origin` a browser would send (the service refuses session writes that cannot show their origin).
 */
export function memberClient(baseUrl: string, cookie: string): Client {
  return new Client({ session: true, baseUrl, headers: { cookie, origin: new URL(baseUrl).origin } });
}
