import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/domain/password.js';

describe('member passwords', () => {
  it('hash with scrypt at N=2^15, r=8, p=3, written into the stored form, and verify', async () => {
    const stored = await hashPassword('a long pass phrase');
    expect(stored).toMatch(/^scrypt2\.32768\.8\.3\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('a long pass phrase', stored)).toBe(true);
    expect(await verifyPassword('a long pass phrasE', stored)).toBe(false);
    expect(await hashPassword('a long pass phrase')).not.toBe(stored);
  });

  it('write the test cost only when asked, and verify it by the cost stored in the hash', async () => {
    const stored = await hashPassword('a long pass phrase', 'test');
    expect(stored).toMatch(/^scrypt2\.1024\.8\.1\./);
    expect(await verifyPassword('a long pass phrase', stored)).toBe(true);
    expect(await verifyPassword('a long pass phrasE', stored)).toBe(false);
    const [, , , , salt, hash] = stored.split('.');
    expect(await verifyPassword('a long pass phrase', `scrypt2.512.8.1.${salt}.${hash}`)).toBe(false);
  });

  it('still verify hashes written before the cost was stored (N=2^14, r=8, p=1)', async () => {
    const salt = randomBytes(16);
    const legacy = `scrypt.${salt.toString('base64url')}.${scryptSync('old one', salt, 32).toString('base64url')}`;
    expect(await verifyPassword('old one', legacy)).toBe(true);
    expect(await verifyPassword('old two', legacy)).toBe(false);
  });

  it('refuse stored forms they could not have written, without running scrypt on their cost', async () => {
    const good = await hashPassword('x'.repeat(12));
    const [, , , , salt, hash] = good.split('.');
    for (const stored of [
      '',
      'scrypt',
      'scrypt..',
      `scrypt2.1073741824.8.1.${salt}.${hash}`,
      `scrypt2.32769.8.3.${salt}.${hash}`,
      `scrypt2.32768.64.3.${salt}.${hash}`,
      `scrypt2.32768.8.100.${salt}.${hash}`,
      `bcrypt.${salt}.${hash}`,
    ]) {
      expect(await verifyPassword('x'.repeat(12), stored), stored).toBe(false);
    }
  });
});
