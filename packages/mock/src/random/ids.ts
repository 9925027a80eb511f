import { ID_PREFIXES as API_ID_PREFIXES } from '@svc-kit/contract';
import { createPrng, type Prng } from './prng.js';

/**
 * Prefixes of the ids the mock mints: the API's from the contract (the same as the reference service's),
 * plus the mock's own OAuth `state` values.
 */
export const ID_PREFIXES = { ...API_ID_PREFIXES, authorizationState: 'oas' } as const;

export type IdKind = keyof typeof ID_PREFIXES;

export interface IdSource {
  /** `whk_` followed by 24 lowercase hex digits, like the reference service's ids. */
  id(kind: IdKind): string;
  /** `whsec_` followed by 32 bytes in base64url, the shape of the service's signing secrets. */
  signingSecret(): string;
  /** `req_` and 24 hex digits, from its own stream: reads between two writes do not shift record ids. */
  requestId(): string;
  /** A number in `[min, max]`, for latency ranges. */
  between(min: number, max: number): number;
  /** Event and delivery ids (`evt_`, `dlv_`) and test events' made-up values, from a stream of their own:
   * turning deliveries on or emitting test events does not shift the ids of the records. */
  eventStream(kind: 'event' | 'webhookDelivery' | 'thread'): string;
  /** 32 random bytes as 64 hex digits, from the event stream (a made-up contact digest). */
  eventDigest(): string;
}

function bytes(prng: Prng, count: number): Uint8Array {
  const out = new Uint8Array(count);
  for (let index = 0; index < count; index += 4) {
    const word = prng.nextUint32();
    for (let shift = 0; shift < 4 && index + shift < count; shift++)
      out[index + shift] = (word >>> (shift * 8)) & 0xff;
  }
  return out;
}

function hex(data: Uint8Array): string {
  return Array.from(data, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function base64url(data: Uint8Array): string {
  let out = '';
  for (let index = 0; index < data.length; index += 3) {
    const chunk = (data[index]! << 16) | ((data[index + 1] ?? 0) << 8) | (data[index + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((data.length - index) * 8) / 6));
    for (let position = 0; position < chars; position++)
      out += BASE64URL[(chunk >>> (18 - position * 6)) & 63];
  }
  return out;
}

/**
 * Record ids and secrets, request ids, and latency draws come from three independent streams of one seed:
 * a snapshot of the records stays the same whether or not the test made other calls or turned latency on.
 */
export function createIdSource(seed: number): IdSource {
  const ids = createPrng(seed);
  const requests = createPrng(seed ^ 0x27d4eb2f);
  const latency = createPrng(seed ^ 0x5bd1e995);
  const events = createPrng(seed ^ 0x1b873593);
  return {
    id: (kind) => `${ID_PREFIXES[kind]}_${hex(bytes(ids, 12))}`,
    requestId: () => `${ID_PREFIXES.request}_${hex(bytes(requests, 12))}`,
    signingSecret: () => `whsec_${base64url(bytes(ids, 32))}`,
    between: (min, max) => min + Math.floor((latency.nextUint32() / 2 ** 32) * (max - min + 1)),
    eventStream: (kind) => `${kind === 'thread' ? 'thr' : ID_PREFIXES[kind]}_${hex(bytes(events, 12))}`,
    eventDigest: () => hex(bytes(events, 32)),
  };
}
