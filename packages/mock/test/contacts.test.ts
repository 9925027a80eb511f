import { NotFoundError, PermissionDeniedError } from '@svc-kit/client';
import { describe, expect, test } from 'vitest';
import { createSandboxCard, parseSandboxCard, sandboxFingerprint } from '../src/index.js';
import {
  ALICE,
  apiKeyClient,
  BOB,
  DAVE,
  ERIN,
  expectError,
  FIXTURE,
  raw,
  SLUG,
  useSandbox,
} from './support.js';

let now = 1_700_000_000_000;
const sandbox = useSandbox({ data: FIXTURE, now: () => now });
const client = apiKeyClient();
const statusOf = (fingerprint: string) =>
  sandbox.state.contacts(SLUG).find((contact) => contact.fingerprint === fingerprint)?.status;

describe('contacts follow the state machine of spec 3.2', () => {
  test('a request makes a pending_out contact; a card that auto-accepts makes an active one', async () => {
    const card = createSandboxCard({ display_name: 'Hana', endpoint: 'https://hana.example.org/a' });
    const { fingerprint } = parseSandboxCard(card)!;
    expect(await client.contacts.request(SLUG, { card })).toMatchObject({ status: 'pending' });
    expect(statusOf(fingerprint)).toBe('pending_out');
    const pending = await client.contacts.list(SLUG, { status: 'pending_out' });
    expect(pending.contacts).toEqual([
      expect.objectContaining({
        fingerprint,
        display_name: 'Hana',
        endpoint: 'https://hana.example.org/a',
        preset: 'basic',
        created_at: now,
      }),
    ]);

    const eager = createSandboxCard({
      display_name: 'Ivo',
      endpoint: 'https://ivo.example.org/a',
      auto_accept: true,
    });
    expect(await client.contacts.request(SLUG, { card: eager })).toMatchObject({ status: 'active' });
    expect(statusOf(parseSandboxCard(eager)!.fingerprint)).toBe('active');
  });

  test('asking a party that already asked us makes both sides contacts', async () => {
    const card = createSandboxCard({
      display_name: 'Bob',
      endpoint: 'https://bob.example.org/a',
      fingerprint: BOB,
    });
    expect(await client.contacts.request(SLUG, { card })).toMatchObject({ status: 'active' });
    expect(statusOf(BOB)).toBe('active');
  });

  test('asking a blocked party is refused until it is unblocked', async () => {
    const card = createSandboxCard({
      display_name: 'Dave',
      endpoint: 'https://d.example.org/a',
      fingerprint: DAVE,
    });
    await expect(client.contacts.request(SLUG, { card })).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  test('approve (preset default basic) moves a request to active', async () => {
    await client.contacts.approve(SLUG, BOB, { preset: 'colleague' });
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === BOB)).toMatchObject({
      status: 'active',
      preset: 'colleague',
      // The contract's preset switches, as the service sets them.
      permissions: ['messages:receive', 'tools:list'],
      acceptance_unheard_since: null,
    });
    // Only a received request can be approved.
    await expect(client.contacts.approve(SLUG, BOB)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.contacts.approve(SLUG, ALICE)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('reject blocks a request; unblocking it forgets it', async () => {
    await client.contacts.reject(SLUG, BOB);
    expect(statusOf(BOB)).toBe('blocked');
    expect(await client.contacts.unblock(SLUG, BOB)).toEqual({ status: 'forgotten', fingerprint: BOB });
    expect(statusOf(BOB)).toBeUndefined();
  });

  test('a blocked former contact comes back active, keeping its settings', async () => {
    await client.contacts.update(SLUG, ALICE, { preset: 'close' });
    await client.contacts.block(SLUG, ALICE);
    expect(statusOf(ALICE)).toBe('blocked');
    expect(await client.contacts.block(SLUG, ALICE)).toEqual({ status: 'blocked', fingerprint: ALICE });
    expect(await client.contacts.unblock(SLUG, ALICE)).toEqual({ status: 'active', fingerprint: ALICE });
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === ALICE)).toMatchObject({
      status: 'active',
      preset: 'close',
    });
    // Unblocking what is not blocked finds nothing to unblock.
    await expect(client.contacts.unblock(SLUG, ALICE)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('remove drops the contact', async () => {
    await client.contacts.remove(SLUG, ALICE);
    expect(statusOf(ALICE)).toBeUndefined();
    await expect(client.contacts.remove(SLUG, ALICE)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('tools and calls need an active contact', async () => {
    await expect(client.contacts.listTools(SLUG, BOB)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.contacts.callTool(SLUG, BOB, { tool: 'add' })).rejects.toBeInstanceOf(NotFoundError);
  });

  test("a tool the contact lacks, or one that throws, is the peer's answer ok: false", async () => {
    expect(await client.contacts.callTool(SLUG, ALICE, { tool: 'missing' })).toEqual({
      ok: false,
      result: { error: 'unknown_tool', message: 'this identity offers no tool named "missing"' },
    });
    sandbox.seed({
      identities: {
        [SLUG]: {
          contacts: [
            {
              fingerprint: sandboxFingerprint('jo'),
              display_name: 'Jo',
              tools: [
                { name: 'echo' },
                { name: 'fixed', result: { answer: 42 } },
                {
                  name: 'broken',
                  result: () => {
                    throw new Error('upstream exploded');
                  },
                },
              ],
            },
          ],
        },
      },
    });
    const jo = sandboxFingerprint('jo');
    expect(await client.contacts.callTool(SLUG, jo, { tool: 'echo', arguments: { q: 1 } })).toEqual({
      ok: true,
      result: { tool: 'echo', arguments: { q: 1 } },
    });
    expect(await client.contacts.callTool(SLUG, jo, { tool: 'fixed' })).toEqual({
      ok: true,
      result: { answer: 42 },
    });
    expect(await client.contacts.callTool(SLUG, jo, { tool: 'broken' })).toEqual({
      ok: false,
      result: { error: 'upstream exploded' },
    });
  });

  test('an unreachable peer is not notified, and refresh says unreachable', async () => {
    expect(await client.contacts.notifyAcceptance(SLUG, ERIN)).toEqual({
      fingerprint: ERIN,
      notified: false,
      // The peer did not answer, so it refused nothing (as the service answers).
      refusal: null,
    });
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === ERIN)?.acceptance_unheard_since).toBe(
      now,
    );
    expect(await client.contacts.refresh(SLUG, ERIN)).toEqual({
      outcome: 'unreachable',
      why: 'the peer did not answer',
    });
    expect(await client.contacts.remove(SLUG, ERIN)).toEqual({
      status: 'removed',
      fingerprint: ERIN,
      notified: false,
    });
  });

  test('tell-accepted needs an active contact', async () => {
    await expect(client.contacts.notifyAcceptance(SLUG, BOB)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('refresh of a reachable contact is unchanged and updates last_seen_at', async () => {
    now += 60_000;
    expect(await client.contacts.refresh(SLUG, ALICE)).toEqual({ outcome: 'unchanged' });
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === ALICE)?.last_seen_at).toBe(now);
  });

  test('petname, trust, preset and permissions are stored', async () => {
    await client.contacts.setPetname(SLUG, ALICE, { petname: 'Ally' });
    await client.contacts.setTrust(SLUG, ALICE, { trust: 'may_instruct' });
    const { contact } = await client.contacts.update(SLUG, ALICE, { permissions: ['a', 'b', 'a'] });
    expect(contact).toMatchObject({ petname: 'Ally', trust_flag: 'may_instruct', permissions: ['a', 'b'] });
  });

  test('contacts are per identity; an unknown identity has none', async () => {
    expect(await client.contacts.list('someone-else')).toEqual({ contacts: [] });
    await expectError(
      await raw('setTrust', {
        params: { slug: 'someone-else', fingerprint: ALICE },
        body: { trust: 'may_instruct' },
      }),
      404,
      'not_found',
    );
  });
});
