import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { ensureIdentityKey } from '../../src/peer/own-identity.js';
import { insertMember } from '../../src/store/queries/members.js';
import { createSecretBox, type SecretBox } from '../../src/store/secret-box.js';
import { loadSecretKey } from '../../src/store/secret-key.js';
import { checkSecretKey, SecretKeyMismatchError } from '../../src/store/secret-key-check.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { addIdentity } from '../support/identity.js';
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
    const first = loadSecretKey(undefined, dir).key;
    expect(first).toHaveLength(32);
    expect(loadSecretKey(undefined, dir)).toEqual({
      key: first,
      source: join(dir, 'secret.key'),
      generatedFile: undefined,
    });
    expect((await stat(join(dir, 'secret.key'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(dir, 'secret.key'), 'utf8')).trim()).toBe(first.toString('hex'));
  });

  it('comes from SVC_SECRET_KEY when set, as hex or base64, and refuses a wrong length', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-key-'));
    const key = randomBytes(32);
    expect(loadSecretKey(key.toString('hex'), dir).key.equals(key)).toBe(true);
    expect(loadSecretKey(key.toString('base64'), dir).key.equals(key)).toBe(true);
    expect(() => loadSecretKey(randomBytes(16).toString('hex'), dir)).toThrow(/32 bytes/);
  });
});

describe.each(BACKENDS)('checking the at-rest key against the database on $name', (backend) => {
  const given = (source: string) => ({ source, generatedFile: undefined });

  it('passes the key each kind of stored secret was sealed with, and names the setting otherwise', async () => {
    const store = await backend.open();
    try {
      const key = createSecretBox(randomBytes(32));
      const other = createSecretBox(randomBytes(32));
      const mismatch = (box: SecretBox, source = 'SVC_SECRET_KEY') =>
        checkSecretKey(store.db, box, { key: Buffer.alloc(32), ...given(source) }).catch(
          (error: unknown) => error,
        );
      // Nothing sealed yet: any key will do.
      expect(await mismatch(other)).toBeUndefined();

      // Each source alone, in turn: a member's TOTP seed, a webhook secret, an identity's private key.
      const workspaceId = await seedWorkspace(store.db);
      const memberId = newId('mem');
      await insertMember(store.db, {
        id: memberId,
        workspace_id: workspaceId,
        email: `${memberId}@example.com`,
        password_hash: null,
        permissions: [],
        mfa_secret_enc: key.seal('JBSWY3DPEHPK3PXP', memberId),
        created_at: Date.now(),
      });
      const sources = [
        async () => {},
        async () => {
          await store.db.query('UPDATE members SET mfa_secret_enc = NULL');
          await seedActiveEndpoint(store.db, key, workspaceId, 'https://hooks.example.com/x');
        },
        async () => {
          await store.db.query('UPDATE webhook_endpoints SET secret_enc = NULL');
          await ensureIdentityKey(
            store.db,
            key,
            await addIdentity(store.db, workspaceId, 'alice'),
            Date.now(),
          );
        },
      ];
      for (const seal of sources) {
        await seal();
        expect(await mismatch(key)).toBeUndefined();
        const refusal = await mismatch(other, '/data/secret.key');
        expect(refusal).toBeInstanceOf(SecretKeyMismatchError);
        expect((refusal as Error).message).toMatch(
          /^the at-rest key \(\/data\/secret\.key\) does not open the secrets this database already holds/,
        );
      }
      const generated = await checkSecretKey(store.db, other, {
        key: Buffer.alloc(32),
        source: '/data/secret.key',
        generatedFile: '/data/secret.key',
      }).catch((error: unknown) => error);
      expect((generated as Error).message).toMatch(
        /^the at-rest key \(none was set: this start generated one\)/,
      );
    } finally {
      await store.close();
    }
  });
});
