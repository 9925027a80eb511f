import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { Client } from '@svc-kit/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';

/** What a freshly seeded sandbox prints: where it listens, its API key and its identities' cards. */
interface Banner {
  baseUrl: string;
  apiKey: string;
  cards: Map<string, { fingerprint: string; card: string }>;
}

function bannerOf(output: string): Banner {
  const baseUrl = /listening on (http:\/\/\S+)/.exec(output)?.[1];
  const apiKey = /API key \(all scopes\):\s+(\S+)/.exec(output)?.[1];
  if (!baseUrl || !apiKey) throw new Error(`no sandbox banner in the output:\n${output}`);
  const cards = new Map<string, { fingerprint: string; card: string }>();
  for (const match of output.matchAll(
    /contact card of (\S+) \((sha256:[0-9a-f]{64})\):\s+(svc-card\.v1\.\S+)/g,
  )) {
    cards.set(match[1]!, { fingerprint: match[2]!, card: match[3]! });
  }
  return { baseUrl, apiKey, cards };
}

/**
 * Two service processes, each with its own PGlite data dir and port, started with no setting (local
 * sandboxes): contacts run between them over real sockets, exactly as two people's sandboxes would.
 */
describe('contacts between two service processes', () => {
  let built: Awaited<ReturnType<typeof buildEntryPoint>>;
  const children: ChildProcess[] = [];
  const dataDirs: string[] = [];

  beforeAll(async () => {
    built = await buildEntryPoint();
  }, 60_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(
      children.map((child) =>
        child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined,
      ),
    );
    await built.remove();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });

  async function startProcess(): Promise<ServiceProcess> {
    const dataDir = await initialisedDataDir('svc-peer-data-');
    dataDirs.push(dataDir);
    // No setting: two sandboxes on loopback admit each other's cards.
    const service = spawnService(built.main, { SVC_DATA_DIR: dataDir });
    children.push(service.child);
    return service;
  }

  it('runs request then approve, and both sides list each other as active', async () => {
    const [first, second] = await Promise.all([startProcess(), startProcess()]);
    // The last line: once it is there, everything needed is.
    await Promise.all([
      first.printed('Ctrl-C stops the service'),
      second.printed('Ctrl-C stops the service'),
    ]);
    const one = bannerOf(first.output());
    const two = bannerOf(second.output());
    expect(one.baseUrl).not.toBe(two.baseUrl);
    const alice = one.cards.get('sandbox-alice');
    const bob = two.cards.get('sandbox-bob');
    if (!alice || !bob) throw new Error('the sandbox cards were not printed');
    const apiOne = new Client({ apiKey: one.apiKey, baseUrl: one.baseUrl, maxRetries: 0 });
    const apiTwo = new Client({ apiKey: two.apiKey, baseUrl: two.baseUrl, maxRetries: 0 });

    expect(await apiOne.contacts.request('sandbox-alice', { card: bob.card, note: 'hi from one' })).toEqual({
      status: 'pending',
      contact: {
        fingerprint: bob.fingerprint,
        endpoint: `${two.baseUrl}/peer/v1`,
        display_name: 'sandbox-bob',
      },
    });
    const pending = (await apiTwo.contacts.list('sandbox-bob')).contacts;
    expect(pending).toEqual([
      expect.objectContaining({
        fingerprint: alice.fingerprint,
        status: 'pending_in',
        display_name: 'sandbox-alice',
      }),
    ]);

    expect(await apiTwo.contacts.approve('sandbox-bob', alice.fingerprint)).toMatchObject({
      status: 'approved',
      fingerprint: alice.fingerprint,
      notified: true,
    });
    expect((await apiOne.contacts.list('sandbox-alice')).contacts).toEqual([
      expect.objectContaining({
        fingerprint: bob.fingerprint,
        status: 'active',
        endpoint: `${two.baseUrl}/peer/v1`,
      }),
    ]);
    expect((await apiTwo.contacts.list('sandbox-bob')).contacts).toEqual([
      expect.objectContaining({
        fingerprint: alice.fingerprint,
        status: 'active',
        endpoint: `${one.baseUrl}/peer/v1`,
      }),
    ]);

    for (const service of [first, second]) service.child.kill('SIGTERM');
    expect(await Promise.all([first.exited, second.exited])).toEqual([0, 0]);
  }, 120_000);
});
