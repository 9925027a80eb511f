import type { Db } from '../../src/store/db.js';

/** The pool's size (postgres.ts). */
export const POOL_SIZE = 10;

/** Takes every pooled connection with an open transaction; the returned function gives them back. */
export async function holdEveryConnection(db: Db): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered = 0;
  const held = Array.from({ length: POOL_SIZE }, () =>
    db.transaction(async () => {
      entered++;
      await released;
    }),
  );
  while (entered < POOL_SIZE) await new Promise((resolve) => setTimeout(resolve, 5));
  return async () => {
    release();
    await Promise.all(held);
  };
}
