import { randomBytes } from 'node:crypto';

/** Opaque record ids with a type prefix (`whk_…`), so that an id pasted in the wrong place is obvious. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
