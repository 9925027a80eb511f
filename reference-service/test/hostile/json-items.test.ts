// A stranger's mebibyte of JSON holding a hundred thousand tiny members: JSON.parse of it held the main
// thread for about 100 ms before any credential was looked at, so a few connections without an account
// starved every tenant (a signed-in tenant's reads waited seconds). The body parser now counts items in
// the linear pass that already bounds the nesting, and refuses such a body unparsed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_ITEMS } from '../../src/domain/json-depth.js';
import { BACKENDS } from '../support/backends.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

/** A JSON object of `members` members with short distinct names, sent as text. */
function manyMembers(members: number, extra: Record<string, unknown> = {}): string {
  const names = Array.from({ length: members }, (_, index) => `"${index.toString(36)}":0`);
  const fields = Object.entries(extra).map(
    ([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`,
  );
  return `{${[...fields, ...names].join(',')}}`;
}

async function postText(service: TestService, path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { error: { code: string; message: string } },
  };
}

describe.each(BACKENDS)('bodies of many items, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let tenant: Tenant;

  beforeAll(async () => {
    service = await startTestService(store);
    tenant = await createTenant(service.ctx);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('refuses a body of more items than the cap unparsed, on an open door and behind a credential', async () => {
    const flood = manyMembers(100_000);
    expect(flood.length).toBeLessThan(1_048_576);
    const open = await postText(service, '/v1/sessions', flood, {});
    expect(open.status).toBe(400);
    expect(open.body.error.message).toContain(`more than ${MAX_JSON_ITEMS} array items and object members`);
    // A route behind a credential still answers the stranger 401 first, and its caller the 400.
    expect((await postText(service, '/sandbox/events', flood, {})).status).toBe(401);
    const keyed = await postText(service, '/sandbox/events', flood, {
      authorization: `Bearer ${tenant.key}`,
    });
    expect(keyed.status).toBe(400);
    expect(keyed.body.error.message).toContain('array items and object members');
  });

  it('still parses a body at the cap, which the route then judges', async () => {
    const atCap = manyMembers(MAX_JSON_ITEMS - 2, { email: 'someone@example.com' });
    const answer = await postText(service, '/v1/sessions', atCap, {});
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).not.toContain('array items');
    expect(answer.body.error.message).toContain('nrecognized');
  });
});
