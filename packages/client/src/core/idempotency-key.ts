/**
 * A fresh Idempotency-Key: a random UUID. `crypto.randomUUID` exists in browsers, Deno, Bun, edge
 * runtimes and Node 19+; Node 18 without the global Web Crypto falls back to `Math.random`, which is
 * enough here because the key must be unique, not secret.
 */
export function newIdempotencyKey(): string {
  const webCrypto = (globalThis as { crypto?: Partial<Crypto> }).crypto;
  if (typeof webCrypto?.randomUUID === 'function') return webCrypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof webCrypto?.getRandomValues === 'function') webCrypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What the client accepts as a caller's key: 1 to 255 printable ASCII characters. */
export function isValidIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && /^[\x20-\x7e]{1,255}$/.test(value) && value.trim() === value;
}
