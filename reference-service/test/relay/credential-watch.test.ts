import { describe, expect, it, vi } from 'vitest';
import { CredentialWatch } from '../../src/features/listen/credential-watch.js';
import { CREDENTIALS_CHANNEL } from '../../src/store/credential-cache.js';
import { BACKENDS } from '../support/backends.js';

describe.each(BACKENDS)('the listen streams’ credential watch on $name', (backend) => {
  it('re-checks exactly the streams an announced change concerns, and every stream after a gap', async () => {
    const store = await backend.open();
    const watch = new CredentialWatch(store.db);
    try {
      const checked: string[] = [];
      const stopA = watch.watch({ keyId: 'key_a', memberId: 'mem_a', workspaceId: 'ws_1' }, () =>
        checked.push('a'),
      );
      watch.watch({ keyId: undefined, memberId: 'mem_b', workspaceId: 'ws_1' }, () => checked.push('b'));
      watch.watch({ keyId: 'key_c', memberId: 'mem_c', workspaceId: 'ws_2' }, () => checked.push('c'));
      const announce = async (payload: string, expected: string[]) => {
        checked.length = 0;
        await store.db.query('SELECT pg_notify($1, $2)', [CREDENTIALS_CHANNEL, payload]);
        await vi.waitFor(() => expect([...checked].sort()).toEqual(expected), { timeout: 5_000 });
        // Nothing more arrives for the same announcement.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect([...checked].sort()).toEqual(expected);
      };
      // The watch starts listening with the first stream; its first announcement may precede that.
      await vi.waitFor(
        async () => {
          checked.length = 0;
          await store.db.query('SELECT pg_notify($1, $2)', [CREDENTIALS_CHANNEL, 'key:key_c']);
          await new Promise((resolve) => setTimeout(resolve, 50));
          expect(checked).toContain('c');
        },
        { timeout: 5_000, interval: 50 },
      );
      await announce('key:key_a', ['a']);
      await announce('member:mem_b', ['b']);
      await announce('workspace:ws_1', ['a', 'b']);
      await announce('workspace:ws_3', []);
      // After a reconnection the payload is empty: changes may have been missed.
      await announce('', ['a', 'b', 'c']);
      stopA();
      await announce('workspace:ws_1', ['b']);
    } finally {
      await watch.stop();
      await store.close();
    }
  });
});
