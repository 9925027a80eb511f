import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENDPOINT_STOPPED_CHANNEL, setEndpointStatus } from '../../src/store/queries/webhook-endpoints.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';

describe.each(BACKENDS)('pausing and resuming an endpoint on $name', (backend) => {
  it('announces a pause to the delivery workers and answers the live endpoints as changed, in one statement', async () => {
    const store = await backend.open();
    try {
      const workspaceId = await seedWorkspace(store.db);
      const endpoint = await seedActiveEndpoint(
        store.db,
        createSecretBox(randomBytes(32)),
        workspaceId,
        'https://hooks.example.com/x',
      );
      const other = await seedActiveEndpoint(
        store.db,
        createSecretBox(randomBytes(32)),
        workspaceId,
        'https://hooks.example.com/y',
      );
      await store.db.query('UPDATE webhook_endpoints SET created_at = created_at + 1 WHERE id = $1', [
        other.id,
      ]);
      const heard: string[] = [];
      const stop = await store.db.listen(ENDPOINT_STOPPED_CHANNEL, (payload) => {
        if (payload !== '') heard.push(payload);
      });
      const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

      const paused = await setEndpointStatus(store.db, workspaceId, endpoint.id, 'paused', Date.now());
      expect(paused?.map((row) => [row.id, row.status])).toEqual([
        [endpoint.id, 'paused'],
        [other.id, 'active'],
      ]);
      await settle();
      expect(heard).toEqual([endpoint.id]);
      const resumed = await setEndpointStatus(store.db, workspaceId, endpoint.id, 'active', Date.now());
      expect(resumed?.map((row) => [row.id, row.status])).toEqual([
        [endpoint.id, 'active'],
        [other.id, 'active'],
      ]);
      await settle();
      expect(heard).toEqual([endpoint.id]);
      expect(
        await setEndpointStatus(store.db, workspaceId, 'whk_nope', 'paused', Date.now()),
      ).toBeUndefined();
      await settle();
      expect(heard).toEqual([endpoint.id]);
      const [row] = await store.db.query<{ status: string }>(
        'SELECT status FROM webhook_endpoints WHERE id = $1',
        [endpoint.id],
      );
      expect(row!.status).toBe('active');
      await stop();
    } finally {
      await store.close();
    }
  });
});
