const CALLS_PEERS = Symbol('callsPeers');

/**
 * Marks a handler that opens its own transactions and may call a peer over HTTP. Such a handler must not
 * run inside the one transaction of the generic idempotency wrapper: a peer call to an identity on the
 * same instance would wait for that transaction (PGlite has one connection) until it timed out. Its
 * Idempotency-Key is honoured by `runIdempotentOutsideTransaction` instead.
 */
export function callsPeers<F extends object>(handler: F): F {
  return Object.assign(handler, { [CALLS_PEERS]: true });
}

export function isPeerCallingHandler(handler: object): boolean {
  return (handler as { [CALLS_PEERS]?: boolean })[CALLS_PEERS] === true;
}
