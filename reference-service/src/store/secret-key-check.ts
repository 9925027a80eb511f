import type { Queryable } from './db.js';
import type { SecretBox } from './secret-box.js';
import type { AtRestKey } from './secret-key.js';

/** The at-rest key does not open the secrets the database already holds. */
export class SecretKeyMismatchError extends Error {
  override readonly name = 'SecretKeyMismatchError';
}

/**
 * Opens one secret the database already holds (an identity's private key, else a webhook signing secret, else
 * a member's TOTP seed). A key that cannot open it is not the one they were sealed with: every instance of
 * one PostgreSQL database needs the same key, and a data dir's generated key belongs to the databases that
 * instance seeded. Caught here, the start stops with the setting named, instead of the first signature or
 * sign-in failing on an authentication tag.
 */
export async function checkSecretKey(db: Queryable, box: SecretBox, key: AtRestKey): Promise<void> {
  const [sample] = await db.query<{ sealed: string; bound_to: string }>(
    `(SELECT private_key_enc AS sealed, identity_id AS bound_to FROM identity_keys LIMIT 1)
     UNION ALL (SELECT secret_enc, id FROM webhook_endpoints WHERE secret_enc IS NOT NULL LIMIT 1)
     UNION ALL (SELECT mfa_secret_enc, id FROM members WHERE mfa_secret_enc IS NOT NULL LIMIT 1)
     LIMIT 1`,
  );
  if (sample === undefined) return;
  try {
    box.open(sample.sealed, sample.bound_to);
  } catch {
    throw new SecretKeyMismatchError(
      `the at-rest key (${key.generatedFile ? 'none was set: this start generated one' : key.source}) ` +
        'does not open the secrets this database already holds: they were ' +
        'sealed with another key. Start with the key its first instance used (its SVC_SECRET_KEY, or the ' +
        'secret.key file of the data dir it generated one in).',
    );
  }
}
