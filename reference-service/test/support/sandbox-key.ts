import { mintApiKey } from '../../src/domain/api-key.js';
import { SANDBOX_MEMBER_ID, SANDBOX_WORKSPACE_ID } from '../../src/features/sandbox/seed.js';
import type { Queryable } from '../../src/store/db.js';
import { insertApiKey } from '../../src/store/queries/api-keys.js';

/** A fresh key of the sandbox owner (of a service started with its seed), written straight to the store. */
export async function insertSandboxKey(
  db: Queryable,
  scopes: readonly string[] = ['service:workspace:admin'],
): Promise<{ id: string; token: string }> {
  const key = mintApiKey();
  await insertApiKey(db, {
    id: key.id,
    workspace_id: SANDBOX_WORKSPACE_ID,
    member_id: SANDBOX_MEMBER_ID,
    name: 'test key',
    secret_hash: key.secretHash,
    scopes: [...scopes],
    created_at: Date.now(),
    revoked_at: null,
  });
  return key;
}
