import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { insertDelivery, pendingDelivery, seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';

describe.each(BACKENDS)('a delivery row’s parent on $name', (backend) => {
  // One reference (migration 0016) checks both the endpoint and that the row is in the endpoint's workspace.
  it('is refused without its endpoint, or in a workspace other than its endpoint’s', async () => {
    const store = await backend.open();
    try {
      const [mine, theirs] = [await seedWorkspace(store.db), await seedWorkspace(store.db)];
      const box = createSecretBox(randomBytes(32));
      const endpoint = await seedActiveEndpoint(store.db, box, mine, 'https://hooks.example.com/x');
      const row = (workspaceId: string, endpointId: string) =>
        pendingDelivery(workspaceId, endpointId, newId('evt'));
      await expect(insertDelivery(store.db, row(theirs, endpoint.id))).rejects.toMatchObject({
        code: '23503',
      });
      await expect(insertDelivery(store.db, row(mine, newId('whk')))).rejects.toMatchObject({
        code: '23503',
      });
      await insertDelivery(store.db, row(mine, endpoint.id));
      const [count] = await store.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1',
        [endpoint.id],
      );
      expect(count?.n).toBe(1);
    } finally {
      await store.close();
    }
  });
});
