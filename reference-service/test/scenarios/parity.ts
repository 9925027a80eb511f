import { expect, it } from 'vitest';
import { expectApiError, rawCall } from './expect.js';
import { LOCKED_UPSTREAM_CREDENTIAL, type Target } from './target.js';

const WEBHOOKS = '/v1/workspace/webhooks';

/**
 * Calls on which the mock and the service once answered differently (found by sending both the same
 * calls). Each is pinned here, so that neither can drift again.
 */
export function parityScenarios(target: () => Target): void {
  it('a receiver on a well-known port (22, 1023) is refused by the URL rule alone, no DNS needed', async () => {
    const [owner] = await target().pair();
    const session = target().sessionClient(owner);
    for (const port of [22, 25, 1023]) {
      const error = await expectApiError(
        session.webhooks.create({ url: `https://hooks.example.com:${port}/hook` }),
        400,
        'invalid_request',
      );
      expect(error.message).toContain('the port must be 443 or 1024 to 65535');
    }
    for (const port of [443, 1024, 8443]) {
      const { endpoint } = await session.webhooks.create({ url: `https://hooks.example.com:${port}/hook` });
      await owner.api.webhooks.delete(endpoint.id);
    }
  });

  it('createWebhook without events: events is [] (every event), the same as naming none', async () => {
    const [owner] = await target().pair();
    const session = target().sessionClient(owner);
    // By hand: the typed client would fill in the default itself. A session call goes to the origin its
    // headers name (each party of the mock is a sandbox of its own).
    const headers = target().sessionHeaders(owner);
    const bare = await fetch(`${headers.origin}${WEBHOOKS}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: target().webhookUrl('/no-events') }),
    });
    expect(bare.status).toBe(201);
    const { endpoint } = (await bare.json()) as { endpoint: { id: string; events: string[] } };
    expect(endpoint.events).toEqual([]);
    const named = await session.webhooks.create({ url: target().webhookUrl('/none-named'), events: [] });
    expect(named.endpoint.events).toEqual([]);
    await owner.api.webhooks.delete(endpoint.id);
    await owner.api.webhooks.delete(named.endpoint.id);
  });

  it('a path with a trailing slash is no route: 404 not_found, like any unknown path', async () => {
    const [owner] = await target().pair();
    for (const path of [`${WEBHOOKS}/`, `/v1/identities/${owner.slug}/contacts/`]) {
      const answer = await rawCall(target(), owner, 'GET', path);
      expect({ path, status: answer.status, body: answer.body }).toMatchObject({
        path,
        status: 404,
        body: { error: { code: 'not_found' } },
      });
    }
  });

  it('HEAD of a listing is its GET without the body; without a key, the same 401', async () => {
    const [owner] = await target().pair();
    for (const path of [WEBHOOKS, `/v1/identities/${owner.slug}/contacts`]) {
      const answer = await target().fetch(owner, path, { method: 'HEAD' });
      expect({ path, status: answer.status, body: await answer.text() }).toEqual({
        path,
        status: 200,
        body: '',
      });
      expect(answer.headers.get('x-request-id')).toEqual(expect.any(String));
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      const anonymous = await fetch(`${target().baseUrl}${path}`, { method: 'HEAD' });
      expect({ path, status: anonymous.status }).toEqual({ path, status: 401 });
    }
  });

  it('approveContact with a JSON null body is 400: a body, when sent, must be an object', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    const path = `/v1/identities/${bob.slug}/contacts/${alice.fingerprint}/approve`;
    const answer = await target().fetch(bob, path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'null',
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { code: 'invalid_request' } });
    // Nothing changed: the request still waits for an answer.
    const { contacts } = await bob.api.contacts.list(bob.slug);
    expect(contacts.map((contact) => contact.status)).toEqual(['pending_in']);
  });

  it('tell-accepted to a peer that does not answer: notified false, refusal null (no peer refused)', async () => {
    const [alice] = await target().pair();
    const silent = await target().unreachableContact(alice);
    expect(await alice.api.contacts.notifyAcceptance(alice.slug, silent)).toEqual({
      fingerprint: silent,
      notified: false,
      refusal: null,
    });
  });

  it('an upstream that asks for credentials (401) and is given none: needs_authorization', async () => {
    const [owner] = await target().pair();
    const created = await owner.api.integrations.create(owner.slug, {
      catalogue: target().lockedCatalogueEntry,
    });
    expect(created.integration.status).toBe('needs_authorization');
    expect(created.trouble).toEqual(expect.any(String));
    // With the credential it asks for, the same upstream is healthy.
    const given = await owner.api.integrations.create(owner.slug, {
      catalogue: target().lockedCatalogueEntry,
      slug: 'unlocked',
      auth: LOCKED_UPSTREAM_CREDENTIAL,
    });
    expect(given.integration.status).toBe('healthy');
  });
}
