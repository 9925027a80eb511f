import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { StoredOAuthProvider } from '../../src/features/integrations/oauth-provider.js';
import type { Queryable } from '../../src/store/db.js';
import type { IntegrationRow } from '../../src/store/queries/integrations.js';
import type { SecretBox } from '../../src/store/secret-box.js';

describe('the stored OAuth provider', () => {
  // The MCP SDK holds the provider: whatever inspects or logs it must not reach the secret box or the row.
  it('shows neither its secret box nor the sealed row', () => {
    const row = { id: 'int_1', oauth_tokens_enc: 'SEALED-TOKENS' } as unknown as IntegrationRow;
    const provider = new StoredOAuthProvider({
      db: {} as Queryable,
      box: { seal: () => '', open: () => '' } as unknown as SecretBox,
      row,
      redirectUri: 'https://svc.example/oauth/integrations/callback',
    });
    expect(Object.keys(provider)).not.toContain('options');
    expect(inspect(provider)).not.toContain('SEALED-TOKENS');
    expect(JSON.stringify(provider)).not.toContain('SEALED-TOKENS');
  });
});
