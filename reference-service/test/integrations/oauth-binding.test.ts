import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OAUTH_BINDING_COOKIE,
  setBindingCookie,
  stateBinding,
} from '../../src/features/integrations/oauth-binding.js';
import { createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { call } from '../support/harness.js';
import { rawCall } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';
import { startIntegrationInstance } from './support.js';
import { type OAuthUpstream, startOAuthUpstream } from './upstreams.js';

const NAVIGATION = { 'sec-fetch-mode': 'navigate' };

/**
 * Attack finding F7: the callback completed whichever ceremony its `state` named, in anyone's browser, so
 * a stranger could send their authorization URL to a victim and collect the victim's upstream tokens.
 */
describe.each(BACKENDS)(
  'the OAuth callback completes a ceremony only in the browser that started it, on $name',
  (backend) => {
    const clock = new TestClock();
    const store = useStore(backend);
    let one: Instance;
    let upstream: OAuthUpstream;
    let eve: Party;

    beforeAll(async () => {
      upstream = await startOAuthUpstream();
      one = await startIntegrationInstance(store, clock, { allowLocalhost: true });
      eve = await createParty(one, 'eve');
    });
    afterAll(async () => {
      await one?.close();
      await upstream?.close();
    });

    /** A browser at the upstream's consent page: the redirect back to our callback. */
    const consent = async (authorizationUrl: string) => {
      const atServer = await fetch(authorizationUrl, { redirect: 'manual' });
      expect(atServer.status).toBe(302);
      return atServer.headers.get('location') ?? '';
    };
    // node:http, because fetch sets its own Sec-Fetch-Mode.
    const arrive = (callback: string, cookie?: string, headers: Record<string, string> = NAVIGATION) =>
      rawCall(callback, 'GET', new URL(callback).pathname + new URL(callback).search, {
        headers: { ...headers, ...(cookie ? { cookie } : {}) },
      });
    const status = async () => (await eve.api.integrations.list(eve.slug)).integrations[0]?.status;

    it('refuses a browser without the binding and lets the starter’s browser through', async () => {
      const created = await call(one, 'POST', `/v1/identities/${eve.slug}/integrations`, {
        auth: { key: eve.key },
        body: { slug: 'victims-tools', endpoint: upstream.url },
      });
      expect(created.status).toBe(201);
      const setCookie = created.headers
        .getSetCookie()
        .find((line) => line.startsWith(`${OAUTH_BINDING_COOKIE}=`));
      expect(setCookie).toMatch(/; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
      const url = (created.body as { authorization_url: string }).authorization_url;

      // The victim's browser, sent eve's URL, consents and comes back without eve's cookie.
      const victim = await arrive(await consent(url));
      // A browser is answered with the portal's refusal page (callback-page.ts), in words.
      expect(victim.status).toBe(403);
      expect(String(victim.body)).toContain('this authorization was started in another browser');
      expect(await status()).toBe('needs_authorization');

      // Eve's own browser carries the binding and completes the ceremony.
      const own = await arrive(await consent(url), setCookie!.split(';')[0]);
      expect(own.status).toBe(303);
      expect(own.headers.location).toBe('/#/integrations/authorized/victims-tools');
      expect(await status()).toBe('healthy');
    });

    // Issue 41: the check read Sec-Fetch-Mode, which the sender chooses; anything but `navigate` (an image
    // the attacker's page embeds, a browser that sends no Sec-Fetch-* at all, a program) skipped it.
    it('asks every callback for the binding, whatever Sec-Fetch headers it carries or lacks', async () => {
      const created = await call(one, 'POST', `/v1/identities/${eve.slug}/integrations`, {
        auth: { key: eve.key },
        body: { slug: 'sub-resource', endpoint: upstream.url },
      });
      expect(created.status).toBe(201);
      const url = (created.body as { authorization_url: string }).authorization_url;
      const current = async () =>
        (await eve.api.integrations.list(eve.slug)).integrations.find((row) => row.slug === 'sub-resource')
          ?.status;
      for (const headers of [
        { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image', 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site' },
        {},
      ]) {
        const victim = await arrive(await consent(url), undefined, headers);
        expect({ headers, status: victim.status }).toEqual({ headers, status: 403 });
        expect(victim.body).toMatchObject({ error: { code: 'forbidden' } });
        expect(await current()).toBe('needs_authorization');
      }
      // A program holding the cookie handed out with the URL completes it, and is answered in JSON.
      const binding = created.headers
        .getSetCookie()
        .find((line) => line.startsWith(`${OAUTH_BINDING_COOKIE}=`))!
        .split(';')[0];
      const program = await arrive(await consent(url), binding, {});
      expect(program.status).toBe(200);
      expect(program.body).toEqual({ status: 'authorized', integration: 'sub-resource' });
      expect(await current()).toBe('healthy');
    });
  },
);

describe('the binding cookie', () => {
  it('is set from an answer already encoded to bytes by an earlier hook, as from a string', async () => {
    const url = 'https://auth.example.com/authorize?state=planted-state-4b1e&client_id=x';
    const body = JSON.stringify({ integration: { id: 'int_1' }, authorization_url: url });
    for (const payload of [body, Buffer.from(body)]) {
      const headers = new Map<string, unknown>();
      const reply = { statusCode: 200, header: (name: string, value: unknown) => headers.set(name, value) };
      const sent = await setBindingCookie({} as FastifyRequest, reply as unknown as FastifyReply, payload);
      expect(sent).toBe(payload);
      const cookies = [headers.get('set-cookie')].flat();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toContain(`${OAUTH_BINDING_COOKIE}=${stateBinding('planted-state-4b1e')}`);
    }
  });
});
