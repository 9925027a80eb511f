// `pg` converts parameter values (arrays to array literals, objects to JSON, buffers as bytes) in this
// module, which its type package does not describe.
declare module 'pg/lib/utils.js' {
  export function prepareValue(value: unknown): string | Buffer | null;
}
