// A body in a vector file is one of three shapes, so that binary and very large bodies stay small and
// readable in JSON. See README.md.

/**
 * @typedef {{ utf8: string } | { base64: string } | { repeat: string, times: number }} BodySpec
 */

/**
 * The exact bytes a body spec stands for.
 * @param {BodySpec} spec
 * @returns {Buffer}
 */
export function bodyBytes(spec) {
  if ('utf8' in spec) return Buffer.from(spec.utf8, 'utf8');
  if ('base64' in spec) return Buffer.from(spec.base64, 'base64');
  return Buffer.from(spec.repeat.repeat(spec.times), 'utf8');
}

/**
 * @param {string} text
 * @returns {BodySpec}
 */
export const utf8 = (text) => ({ utf8: text });

/**
 * @param {Uint8Array} bytes
 * @returns {BodySpec}
 */
export const base64 = (bytes) => ({ base64: Buffer.from(bytes).toString('base64') });
