import { describe, expect, it } from 'vitest';
import { OAUTH_BINDING_COOKIE, stateBinding } from '../../src/features/integrations/oauth-binding.js';
import { CALLBACK_PAGE_CSP, callbackRefusalPage } from '../../src/features/portal-static/callback-page.js';
import { rawCall } from '../support/raw-call.js';
import { serviceForTests } from '../support/service-lifecycle.js';

const CALLBACK = '/oauth/integrations/callback';

/** The OAuth callback's refusals: a page in words for a browser sent back there, JSON for a program. */
describe('refusals of the OAuth callback', () => {
  const running = serviceForTests();
  // node:http, because fetch sets Sec-Fetch-Mode itself (to cors); a browser sent back here says navigate.
  const open = (query: string, mode?: string, cookie?: string) =>
    rawCall(running.service.baseUrl, 'GET', `${CALLBACK}${query}`, {
      headers: { ...(mode ? { 'sec-fetch-mode': mode } : {}), ...(cookie ? { cookie } : {}) },
    });
  // The binding of the state asked for, so that the refusal is the state's own.
  const BOUND = `${OAUTH_BINDING_COOKIE}=${stateBinding('never-issued')}`;

  it('shows a browser a page with the refusal in words, its request id and a link back', async () => {
    for (const [query, status, words] of [
      // A browser without the state's binding cookie is refused before the state is looked up.
      ['?state=never-issued&code=abc', 403, /started in another browser/],
      ['?error=access_denied&state=x', 400, /the authorization server refused \(access_denied\)/],
      ['', 400, /needs `code` and `state`/],
    ] as const) {
      const answer = await open(query, 'navigate');
      expect(answer.status, query).toBe(status);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['content-security-policy']).toBe(CALLBACK_PAGE_CSP);
      expect(answer.headers['cache-control']).toBe('no-store');
      const page = String(answer.body);
      expect(page).toMatch(words);
      expect(page).toContain(`Request id: <code>${answer.headers['x-request-id']}</code>`);
      expect(page).toContain('<a href="/#/integrations">Back to the integrations page</a>');
      expect(page).not.toMatch(/<script|\{"error"/);
    }
  });

  it('keeps the JSON error body for a program', async () => {
    const answer = await open('?state=never-issued&code=abc', 'cors', BOUND);
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body).toMatchObject({ error: { code: 'not_found' } });
    const bare = await open('?state=never-issued&code=abc');
    expect(bare.headers['content-type']).toMatch(/^application\/json/);
  });

  it('escapes what the upstream said, and allows only its own inline style', () => {
    const page = callbackRefusalPage(
      'upstream_failed',
      'the authorization failed: <img src=x onerror=alert(1)> "quoted" & more',
      'req_<b>',
    );
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &amp; more');
    expect(page).toContain('req_&lt;b&gt;');
    expect(page).toMatch(/failed while the service finished the authorization/);
    expect(page).not.toContain('<img');
    expect(CALLBACK_PAGE_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='/);
    expect(CALLBACK_PAGE_CSP).not.toMatch(/script-src|unsafe/);
  });
});
