import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/store/secret-box.js';
import { loadSecretKey } from '../../src/store/secret-key.js';
import { checkSecretKey, SecretKeyMismatchError } from '../../src/store/secret-key-check.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';

describe('the secret box', () => {
  it('round-trips any text and never shows it in the sealed form', () => {
    const box = createSecretBox(randomBytes(32));
    fc.assert(
      fc.property(fc.string({ minLength: 8 }), fc.string(), (secret, id) => {
        const sealed = box.seal(secret, id);
        expect(sealed).not.toContain(secret);
        expect(box.open(sealed, id)).toBe(secret);
      }),
    );
  });

  it('refuses another record’s ciphertext, another key, and tampering', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal('whsec_abc', 'whk_1');
    expect(() => box.open(sealed, 'whk_2')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'whk_1')).toThrow();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() =>
      box.open([...parts.slice(0, 3), flipped.toString('base64url')].join('.'), 'whk_1'),
    ).toThrow();
    expect(() => box.open('garbage', 'whk_1')).toThrow(/not a sealed secret/);
  });

  it('seals the same secret differently each time', () => {
    const box = createSecretBox(randomBytes(32));
    expect(box.seal('same', 'id')).not.toBe(box.seal('same', 'id'));
  });
});

describe('the at-rest key', () => {
  it('is generated once into the data dir, private to its owner, and read back after', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-key-'));
    const first = loadSecretKey(undefined, dir);
    expect(first).toHaveLength(32);
    expect(loadSecretKey(undefined, dir).equals(first)).toBe(true);
    expect((await stat(join(dir, 'secret.key'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(dir, 'secret.key'), 'utf8')).trim()).toBe(first.toString('hex'));
  });

  it('comes from SVC_SECRET_KEY when set, as hex or base64, and refuses a wrong length', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-key-'));
    const key = randomBytes(32);
    expect(loadSecretKey(key.toString('hex'), dir).equals(key)).toBe(true);
    expect(loadSecretKey(key.toString('base64'), dir).equals(key)).toBe(true);
    expect(() => loadSecretKey(randomBytes(16).toString('hex'), dir)).toThrow(/32 bytes/);
  });
});

describe.each(BACKENDS)('checking the at-rest key against the database on $name', (backend) => {
  it('passes the key its secrets were sealed with and an empty database, and names the setting otherwise', async () => {
    const store = await backend.open();
    try {
      const key = createSecretBox(randomBytes(32));
      const other = createSecretBox(randomBytes(32));
      await checkSecretKey(store.db, other, 'SVC_SECRET_KEY');
      const workspaceId = await seedWorkspace(store.db);
      await seedActiveEndpoint(store.db, key, workspaceId, 'https://hooks.example.com/x');
      await checkSecretKey(store.db, key, 'SVC_SECRET_KEY');
      const refusal = await checkSecretKey(store.db, other, 'SVC_SECRET_KEY').catch(
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(SecretKeyMismatchError);
      expect((refusal as Error).message).toMatch(
        /^the at-rest key \(SVC_SECRET_KEY\) does not open the secrets/,
      );
    } finally {
      await store.close();
    }
  });
});
