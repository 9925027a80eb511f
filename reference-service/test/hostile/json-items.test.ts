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

  it("refuses a stranger's large body for its size, unparsed, and one of more items than the cap on the one route that takes large bodies", async () => {
    const flood = manyMembers(100_000);
    expect(flood.length).toBeLessThan(1_048_576);
    // Past the default limit: refused as it arrives, before JSON.parse or any credential.
    const open = await postText(service, '/v1/sessions', flood, {});
    expect(open.status).toBe(400);
    expect(open.body.error.message).toBe('the body is larger than 65536 bytes');
    // A route behind a credential still answers the stranger 401 first, and its caller the 400.
    expect((await postText(service, '/sandbox/events', flood, {})).status).toBe(401);
    const keyed = await postText(service, '/sandbox/events', flood, {
      authorization: `Bearer ${tenant.key}`,
    });
    expect(keyed.status).toBe(400);
    expect(keyed.body.error.message).toBe('the body is larger than 65536 bytes');
    // setExposure takes bodies up to a mebibyte: there the item cap refuses the flood unparsed.
    const exposure = `/v1/identities/anyone/integrations/up/exposure`;
    expect((await postText(service, exposure, flood, {})).status).toBe(401);
    const items = await postText(service, exposure, flood, { authorization: `Bearer ${tenant.key}` });
    expect(items.status).toBe(400);
    expect(items.body.error.message).toContain(`more than ${MAX_JSON_ITEMS} array items and object members`);
    // An exposure's entries may be up to 256 KiB: such a body is read, and the route answers it.
    const entries = Array.from({ length: 500 }, (_, i) => ({
      tool: `t${i}`,
      mode: 'passthrough',
      note: 'x'.repeat(400),
    }));
    const large = JSON.stringify({ entries });
    expect(large.length).toBeGreaterThan(200 * 1024);
    const read = await postText(service, exposure, large, { authorization: `Bearer ${tenant.key}` });
    expect(read.body.error.message).not.toContain('larger than');
    expect(read.status).toBe(404);
  });

  it('still parses a body at the cap, which the route then judges', async () => {
    const atCap = manyMembers(MAX_JSON_ITEMS - 2, { entries: [] });
    const exposure = `/v1/identities/anyone/integrations/up/exposure`;
    const answer = await postText(service, exposure, atCap, { authorization: `Bearer ${tenant.key}` });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).not.toContain('array items');
    expect(answer.body.error.message).toContain('nrecognized');
  });
});
