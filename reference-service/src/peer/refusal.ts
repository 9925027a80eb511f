import type { PeerRefusalCode } from './protocol.js';

/** A refusal answered to a peer as `{ error: { code, message } }`. */
export class PeerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: PeerRefusalCode,
    message: string,
  ) {
    super(message);
  }
}
