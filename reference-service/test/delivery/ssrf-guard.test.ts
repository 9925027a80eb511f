import { excerptOf } from '@svc-kit/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedClient } from '../../src/outbound/guarded-client.js';
import { startCountingListener } from '../support/counting-listener.js';

/** What each hostile name resolves to; the guard must refuse every one without opening a connection. */
const HOSTILE_DNS: Record<string, string[]> = {
  'loopback.evil.test': ['127.0.0.1'],
  'loopback-other.evil.test': ['127.8.9.10'],
  'private10.evil.test': ['10.0.0.1'],
  'private172.evil.test': ['172.16.0.1'],
  'private192.evil.test': ['192.168.0.1'],
  'metadata.evil.test': ['169.254.169.254'],
  'linklocal.evil.test': ['169.254.1.1'],
  'cgnat.evil.test': ['100.64.0.1'],
  'unspecified.evil.test': ['0.0.0.0'],
  'zero-net.evil.test': ['0.1.2.3'],
  'broadcast.evil.test': ['255.255.255.255'],
  'multicast.evil.test': ['224.0.0.1'],
  'doc1.evil.test': ['192.0.2.1'],
  'doc2.evil.test': ['198.51.100.1'],
  'doc3.evil.test': ['203.0.113.1'],
  'benchmark.evil.test': ['198.18.0.1'],
  'reserved.evil.test': ['240.0.0.1'],
  'v6-loopback.evil.test': ['::1'],
  'v6-unspecified.evil.test': ['::'],
  'v6-linklocal.evil.test': ['fe80::1'],
  'v6-ula.evil.test': ['fd00::1'],
  'v6-metadata.evil.test': ['fd00:ec2::254'],
  'v6-multicast.evil.test': ['ff02::1'],
  'v4-mapped.evil.test': ['::ffff:127.0.0.1'],
  'v4-compatible.evil.test': ['::127.0.0.1'],
  'nat64.evil.test': ['64:ff9b::7f00:1'],
  '6to4.evil.test': ['2002:7f00:1::1'],
  'teredo.evil.test': ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  'v6-doc.evil.test': ['2001:db8::1'],
  'site-local.evil.test': ['fec0::1'],
  'mixed.evil.test': ['93.184.215.14', '127.0.0.1'],
  'mixed-v6.evil.test': ['2606:4700::1111', '::1'],
  'empty.evil.test': [],
};

async function hostileResolve(hostname: string): Promise<string[]> {
  const addresses = HOSTILE_DNS[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses;
}

describe('the outbound guard', () => {
  let listener: Awaited<ReturnType<typeof startCountingListener>>;
  let port = 0;

  beforeAll(async () => {
    // Counts every TCP connection on the loopback port each hostile target leads to.
    listener = await startCountingListener();
    port = listener.port;
  });
  afterAll(() => listener.close());

  const literalUrls = (p: () => number) => [
    `https://127.0.0.1:${p()}/`,
    `https://127.1:${p()}/`,
    `https://2130706433:${p()}/`,
    `https://0x7f.0.0.1:${p()}/`,
    `https://0177.0.0.1:${p()}/`,
    `https://[::1]:${p()}/`,
    `https://[::ffff:127.0.0.1]:${p()}/`,
    `https://[::ffff:7f00:1]:${p()}/`,
    `https://[64:ff9b::127.0.0.1]:${p()}/`,
    `https://169.254.169.254:${p()}/latest/meta-data/`,
    `https://[fd00:ec2::254]:${p()}/`,
    `https://8.8.8.8:${p()}/`,
    `http://localhost:${p()}/`,
    `http://127.0.0.1:${p()}/`,
    `https://user:password@loopback.evil.test:${p()}/`,
    `ftp://loopback.evil.test:${p()}/`,
    'not a url',
  ];
  const names = Object.keys(HOSTILE_DNS);

  it('refuses at least 30 hostile forms, and no connection is ever opened', async () => {
    const client = createGuardedClient({
      resolve: hostileResolve,
      allowLocalhost: false,
      totalTimeoutMs: 3_000,
    });
    const targets = [
      ...literalUrls(() => port),
      ...names.map((name) => `https://${name}:${port}/hook`),
      `https://unknown.evil.test:${port}/`,
    ];
    expect(targets.length).toBeGreaterThanOrEqual(30);
    try {
      for (const target of targets) {
        const outcome = await client.post(target, { 'content-type': 'application/json' }, '{}');
        expect({ target, kind: outcome.kind }).toEqual({ target, kind: 'blocked' });
      }
    } finally {
      await client.close();
    }
    expect(listener.connections()).toBe(0);
  });

  it('names the reason without echoing anything but the host and address', async () => {
    const client = createGuardedClient({ resolve: hostileResolve, allowLocalhost: false });
    try {
      const outcome = await client.post(`https://mixed.evil.test:${port}/x?token=secret`, {}, '{}');
      expect(outcome).toMatchObject({ kind: 'blocked' });
      if (outcome.kind !== 'blocked') return;
      expect(outcome.reason).toContain('127.0.0.1');
      expect(outcome.reason).not.toContain('secret');
    } finally {
      await client.close();
    }
  });

  it('connects to a loopback receiver only with the sandbox opt-in (the counter does count)', async () => {
    const client = createGuardedClient({ resolve: hostileResolve, allowLocalhost: true });
    try {
      const outcome = await client.post(`http://127.0.0.1:${port}/`, {}, '{}');
      expect(outcome).toMatchObject({ kind: 'answered', status: 200, excerpt: 'ok' });
      // Opt-in or not, a public-looking name resolving to loopback is still refused.
      expect((await client.post(`https://loopback.evil.test:${port}/`, {}, '{}')).kind).toBe('blocked');
    } finally {
      await client.close();
    }
    expect(listener.connections()).toBe(1);
  });

  it('keeps at most 500 bytes of an answer, never splitting a character or keeping a NUL', () => {
    const text = `${'é'.repeat(300)}`;
    const excerpt = excerptOf(Buffer.from(text), 500);
    expect(Buffer.byteLength(excerpt)).toBe(500);
    expect(excerpt).toBe('é'.repeat(250));
    expect(excerptOf(Buffer.from(`a${'€'.repeat(200)}`), 500)).toBe(`a${'€'.repeat(166)}`);
    expect(excerptOf(Buffer.from('a\u0000b'), 500)).toBe('ab');
    expect(Buffer.byteLength(excerptOf(Buffer.alloc(600, 0xff), 500))).toBeLessThanOrEqual(500);
  });

  it('decodes an excerpt as a streaming UTF-8 decoder stopping at the limit would (any bytes)', () => {
    // The reference: what the excerpt is meant to be, written the slow, obvious way.
    const reference = (bytes: Buffer, max: number) => {
      let text = new TextDecoder('utf-8', { fatal: false })
        .decode(bytes.subarray(0, max), { stream: true })
        .replaceAll('\u0000', '');
      while (Buffer.byteLength(text, 'utf8') > max) text = text.slice(0, -1);
      return text;
    };
    const answers = fc.oneof(
      fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)),
      fc.string({ unit: 'binary', maxLength: 40 }).map((text) => Buffer.from(text)),
    );
    fc.assert(
      fc.property(answers, fc.integer({ min: 1, max: 90 }), (bytes, max) => {
        const excerpt = excerptOf(bytes, max);
        expect(excerpt).toBe(reference(bytes, max));
        expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(max);
      }),
      { numRuns: 2_000 },
    );
  });
});
