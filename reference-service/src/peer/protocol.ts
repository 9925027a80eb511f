import { hash } from 'node:crypto';
import { z } from 'zod';

/**
 * Peer protocol v1 (PEER-PROTOCOL.md). Every call is a POST of JSON to `<endpoint>/identities/<target
 * fingerprint>/<verb>`, where `<endpoint>` is the target card's endpoint, and carries the caller's card in
 * the body plus three headers. The signature covers the method, the path, the time, the nonce and the
 * body's SHA-256, so none of them can be changed or replayed outside the window.
 */
export const PEER_PATH_PREFIX = '/peer/v1';
export const HEADER_TIMESTAMP = 'svc-peer-timestamp';
export const HEADER_NONCE = 'svc-peer-nonce';
export const HEADER_SIGNATURE = 'svc-peer-signature';
/** Headers of a signed answer (revision 2): the answering identity's proof that it answered this request. */
export const HEADER_ANSWER_TIMESTAMP = 'svc-peer-answer-timestamp';
export const HEADER_ANSWER_SIGNATURE = 'svc-peer-answer-signature';
/** A request older or newer than this (milliseconds, against the receiver's clock) is refused. */
export const REPLAY_WINDOW_MS = 300_000;
/** Peer bodies are small; anything larger is refused on both sides. */
export const MAX_PEER_BODY_BYTES = 64 * 1024;

export function signingText(method: string, path: string, timestamp: string, nonce: string, body: string) {
  const digest = hash('sha256', body);
  return `svc-peer.v1\n${method.toUpperCase()}\n${path}\n${timestamp}\n${nonce}\n${digest}`;
}

/** What binds an answer to its request: the answering identity, the request's path, time and nonce. */
export interface AnsweredRequest {
  /** The answering (target) identity's fingerprint. */
  fingerprint: string;
  path: string;
  requestTimestamp: string;
  requestNonce: string;
}

/**
 * The text an answer's signature covers: the request it answers (so it cannot be replayed to another
 * request: the nonce is fresh per request), its status, its own time and the exact bytes of its body.
 */
export function answerSigningText(
  request: AnsweredRequest,
  status: number,
  answerTimestamp: string,
  body: string,
): string {
  const digest = hash('sha256', body);
  return [
    'svc-peer-answer.v1',
    request.fingerprint,
    request.path,
    request.requestTimestamp,
    request.requestNonce,
    String(status),
    answerTimestamp,
    digest,
  ].join('\n');
}

export const NONCE = /^[A-Za-z0-9_-]{16,64}$/;
/** A protocol timestamp: whole milliseconds since the Unix epoch. */
export const TIMESTAMP = /^\d{1,16}$/;

/** Bodies per verb, as the receiver validates them (the caller's card rides in every one). */
export const peerBodies = {
  card: z.strictObject({ card: z.string() }),
  request: z.strictObject({ card: z.string(), note: z.string().max(1024).optional() }),
  accept: z.strictObject({ card: z.string() }),
  reject: z.strictObject({ card: z.string() }),
  remove: z.strictObject({ card: z.string() }),
  'tools/list': z.strictObject({ card: z.string() }),
  'tools/call': z.strictObject({
    card: z.string(),
    tool: z.string().min(1).max(256),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
} as const;

export type PeerVerb = keyof typeof peerBodies;

/** Answers per verb, as the caller validates them. */
export const peerAnswers = {
  card: z.object({ card: z.string() }),
  request: z.object({ status: z.enum(['pending', 'active']) }),
  accept: z.object({ accepted: z.literal(true) }),
  reject: z.object({ ok: z.literal(true) }),
  remove: z.object({ ok: z.literal(true) }),
  'tools/list': z.object({
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        input_schema: z.record(z.string(), z.unknown()),
      }),
    ),
  }),
  'tools/call': z.object({ ok: z.boolean(), result: z.unknown() }),
} as const satisfies Record<PeerVerb, z.ZodType>;
