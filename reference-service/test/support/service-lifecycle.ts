import { afterAll, beforeAll } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import { startTestService, type TestService } from './harness.js';
import { openMemoryStore } from './pglite-snapshot.js';

export interface ServiceUnderTest {
  readonly store: OpenedStore;
  readonly service: TestService;
}

/**
 * A store and a service on it for the tests of one `describe`: opened before them, closed after (service
 * first, so no request is left on a closed database). Reads throw before `beforeAll` has run, so a test
 * cannot use a half-started service by mistake. The store is an in-memory PGlite unless `open` says else.
 */
export type LifecycleOptions = NonNullable<Parameters<typeof startTestService>[1]> & {
  open?: () => Promise<OpenedStore>;
};

export function serviceForTests(options: LifecycleOptions = {}): ServiceUnderTest {
  const { open = () => openMemoryStore(), ...serviceOptions } = options;
  let store: OpenedStore | undefined;
  let service: TestService | undefined;
  beforeAll(async () => {
    store = await open();
    service = await startTestService(store, serviceOptions);
  });
  afterAll(async () => {
    await service?.close();
    await store?.close();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} is not started (used outside a test?)`);
    return value;
  };
  return {
    get store() {
      return started(store, 'store');
    },
    get service() {
      return started(service, 'service');
    },
  };
}
