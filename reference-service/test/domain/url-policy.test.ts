import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isGlobalUnicast } from '../../src/domain/address-policy.js';
import { checkWebhookUrl } from '../../src/domain/url-policy.js';

const ipv4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`;
const byte = fc.integer({ min: 0, max: 255 });

describe('address classification', () => {
  it.each([
    ['10.0.0.0/8', (b: number, c: number, d: number) => ipv4(10, b, c, d)],
    ['172.16.0.0/12', (b: number, c: number, d: number) => ipv4(172, 16 + (b % 16), c, d)],
    ['192.168.0.0/16', (_b: number, c: number, d: number) => ipv4(192, 168, c, d)],
    ['127.0.0.0/8', (b: number, c: number, d: number) => ipv4(127, b, c, d)],
    ['169.254.0.0/16', (_b: number, c: number, d: number) => ipv4(169, 254, c, d)],
    ['100.64.0.0/10', (b: number, c: number, d: number) => ipv4(100, 64 + (b % 64), c, d)],
    ['0.0.0.0/8', (b: number, c: number, d: number) => ipv4(0, b, c, d)],
    ['224.0.0.0/4', (b: number, c: number, d: number) => ipv4(224 + (b % 16), b, c, d)],
  ])('never treats %s as public', (_range, make) => {
    fc.assert(
      fc.property(byte, byte, byte, (b, c, d) => {
        expect(isGlobalUnicast(make(b, c, d))).toBe(false);
      }),
    );
  });

  it.each([
    '::1',
    '::',
    'fe80::1',
    'fd12:3456::1',
    'fc00::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    'ff02::1',
  ])('never treats %s as public', (address) => expect(isGlobalUnicast(address)).toBe(false));

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'treats %s as public',
    (address) => expect(isGlobalUnicast(address)).toBe(true),
  );

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(typeof isGlobalUnicast(text)).toBe('boolean');
      }),
    );
  });
});

describe('webhook URL policy', () => {
  const resolve = async () => ['93.184.215.14'];

  it('never throws and never accepts a non-https URL without the sandbox opt-in', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.webUrl()), async (raw) => {
        const verdict = await checkWebhookUrl(raw, { resolve, allowLocalhost: false });
        if (verdict.ok) expect(new URL(verdict.url).protocol).toBe('https:');
      }),
    );
  });

  it('refuses names that resolve only to special addresses', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('10.1.2.3', '127.0.0.1', '::1', '169.254.1.1', '100.100.1.1'), {
          minLength: 1,
        }),
        async (addresses) => {
          const verdict = await checkWebhookUrl('https://hooks.example.com/x', {
            resolve: async () => addresses,
            allowLocalhost: true,
          });
          expect(verdict.ok).toBe(false);
        },
      ),
    );
  });
});
