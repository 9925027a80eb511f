import { afterAll, beforeAll } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import type { Backend } from './backends.js';
import { startTestService, type TestService } from './harness.js';
import { openMemoryStore } from './pglite-snapshot.js';

export interface ServiceUnderTest {
  readonly store: OpenedStore;
  readonly service: TestService;
}

const started = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`the ${what} is not started (used outside a test?)`);
  return value;
};

/**
 * A migrated store for the tests of one `describe`, opened by `backend` (an in-memory PGlite unless told)
 * before them and closed after them. What it answers reads the opened store, and throws before `beforeAll`
 * has run. Hooks registered after this call run after the open and before the close (vitest runs `afterAll`
 * hooks last registered first), so a service the suite starts on the store stops before the store closes.
 */
export function useStore(backend: Pick<Backend, 'open'> = { open: openMemoryStore }): OpenedStore {
  let store: OpenedStore | undefined;
  beforeAll(async () => {
    store = await backend.open();
  });
  afterAll(async () => {
    await store?.close();
  });
  return {
    get db() {
      return started(store, 'store').db;
    },
    close: () => started(store, 'store').close(),
  };
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
  const store = useStore({ open });
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await startTestService(store, serviceOptions);
  });
  afterAll(async () => {
    await service?.close();
  });
  return {
    store,
    get service() {
      return started(service, 'service');
    },
  };
}
