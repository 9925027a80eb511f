import { FINGERPRINT_PATTERN } from '@svc-kit/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { RateLimitedError } from '../../domain/errors.js';
import { sendFailure, sendPeerRefusal } from '../../http/error-body.js';
import { unstorableJson } from '../../http/hostile-input.js';
import { privateKeyFromPkcs8, signBytes } from '../../peer/keys.js';
import {
  answerSigningText,
  HEADER_ANSWER_SIGNATURE,
  HEADER_ANSWER_TIMESTAMP,
  HEADER_NONCE,
  HEADER_TIMESTAMP,
  MAX_PEER_BODY_BYTES,
  NONCE,
  PEER_PATH_PREFIX,
  type PeerVerb,
  peerBodies,
  TIMESTAMP,
} from '../../peer/protocol.js';
import { PeerRefusal } from '../../peer/refusal.js';
import { header, verifyPeerRequest } from '../../peer/verify-request.js';
import type { Queryable } from '../../store/db.js';
import { findKeyedIdentityByFingerprint, type KeyedIdentity } from '../../store/queries/identity-keys.js';
import { type InboundCall, inbound, type OfferedToolsSource, type PeerBody } from './inbound.js';
import { signer } from './outbound.js';
import { spendAddressBudget, spendIdentityBudget } from './peer-limits.js';

/**
 * Signs an answer as the identity that was called, bound to the request it answers (revision 2, see
 * PEER-PROTOCOL.md). A request without a well-formed time and nonce has nothing to bind to: its refusal
 * goes out unsigned, which the caller treats as no answer.
 */
function answerSignature(
  ctx: ServiceContext,
  target: KeyedIdentity,
  request: FastifyRequest,
  status: number,
  body: string,
): Record<string, string> {
  const requestTimestamp = header(request.headers, HEADER_TIMESTAMP);
  const requestNonce = header(request.headers, HEADER_NONCE);
  if (requestTimestamp === undefined || requestNonce === undefined) return {};
  if (!TIMESTAMP.test(requestTimestamp) || !NONCE.test(requestNonce)) return {};
  const at = String(ctx.now());
  const text = answerSigningText(
    {
      fingerprint: target.fingerprint,
      path: request.url.split('?')[0] ?? '',
      requestTimestamp,
      requestNonce,
    },
    status,
    at,
    body,
  );
  const key = privateKeyFromPkcs8(ctx.secretBox.open(target.private_key_enc, target.identity_id));
  return {
    [HEADER_ANSWER_TIMESTAMP]: at,
    [HEADER_ANSWER_SIGNATURE]: signBytes(key, Buffer.from(text, 'utf8')).toString('base64url'),
  };
}

/** The identity's own card, signed now (a card is public: this is how a party obtains one). */
async function cardOf(ctx: ServiceContext, db: Queryable, target: KeyedIdentity, now: number) {
  return { card: (await signer(ctx, db, { id: target.identity_id, slug: target.slug }, now)).card };
}

async function targetOf(ctx: ServiceContext, request: FastifyRequest): Promise<KeyedIdentity> {
  const { fingerprint } = request.params as { fingerprint: string };
  const target = FINGERPRINT_PATTERN.test(fingerprint)
    ? await findKeyedIdentityByFingerprint(ctx.db, fingerprint)
    : undefined;
  if (!target) throw new PeerRefusal('unknown_identity', 'no identity with this fingerprint here');
  return target;
}

/**
 * The peer protocol's receiving side, under `/peer/v1`. It is a separate surface from `/v1`: no API key
 * or session, every call authenticated by the caller identity's signature instead (see verify-request.ts).
 * Bodies are kept as raw text so the signature is checked over the exact bytes that were sent.
 */
export async function registerPeerRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  /** The identity's offered tools (its integrations). */
  tools: OfferedToolsSource,
): Promise<void> {
  // The identity a signed call reached, so that its answer, refusals included, is signed by it.
  const answering = new WeakMap<FastifyRequest, KeyedIdentity>();
  await app.register(
    async (peer) => {
      // Before the body is read or the target looked up: a refusal here is unsigned (no target yet).
      peer.addHook('onRequest', async (request) => spendAddressBudget(ctx.db, request.ip, ctx.now()));
      peer.addHook('onSend', async (request, reply, payload) => {
        const target = answering.get(request);
        if (target === undefined || typeof payload !== 'string' || reply.statusCode >= 500) return payload;
        reply.headers(answerSignature(ctx, target, request, reply.statusCode, payload));
        return payload;
      });
      peer.removeContentTypeParser('application/json');
      peer.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: MAX_PEER_BODY_BYTES },
        (_request, text, done) => {
          const raw = typeof text === 'string' ? text : text.toString('utf8');
          // Kept raw for the signature, but never deeper than the /v1 bodies nor holding text the
          // database cannot store (any identity can sign, so this is not left to the signature).
          const refusal = unstorableJson(raw);
          if (refusal) return done(new PeerRefusal('invalid_request', refusal), undefined);
          done(null, raw);
        },
      );
      peer.setErrorHandler((error: Error, request, reply) => {
        if (error instanceof PeerRefusal) return sendPeerRefusal(request, reply, error);
        if (error instanceof RateLimitedError) {
          const limited = new PeerRefusal('rate_limited', error.message, error.retryAfterSeconds);
          return sendPeerRefusal(request, reply, limited);
        }
        // Fastify's own refusals of a request it could not read (a 4xx of its own): the peer's mistake.
        const status = (error as { statusCode?: number }).statusCode;
        if (status !== undefined && status >= 400 && status < 500) {
          const unreadable = new PeerRefusal('invalid_request', 'the request could not be read');
          return sendPeerRefusal(request, reply, unreadable);
        }
        return sendFailure(request, reply, error, {
          log: 'peer request failed',
          message: 'the service failed',
        });
      });

      // The card is public: this is how a party obtains a card to hand to requestContact.
      peer.get('/identities/:fingerprint/card', async (request) =>
        cardOf(ctx, ctx.db, await targetOf(ctx, request), ctx.now()),
      );

      const route = <V extends PeerVerb>(
        verb: V,
        handle: (call: InboundCall<PeerBody<V>>) => Promise<unknown>,
      ) => {
        peer.post(`/identities/:fingerprint/${verb}`, async (request, reply) => {
          const now = ctx.now();
          const target = await targetOf(ctx, request);
          answering.set(request, target);
          const raw = typeof request.body === 'string' ? request.body : '';
          let json: unknown;
          try {
            json = JSON.parse(raw);
          } catch {
            throw new PeerRefusal('invalid_request', 'the body is not JSON');
          }
          const parsed = peerBodies[verb].safeParse(json);
          if (!parsed.success) {
            throw new PeerRefusal('invalid_request', `the body is not a v1 ${verb} message`);
          }
          const body = parsed.data as PeerBody<V>;
          const caller = await verifyPeerRequest(ctx.db, request, raw, body.card, now);
          if (caller.fingerprint === target.fingerprint) {
            throw new PeerRefusal('invalid_request', 'an identity cannot call itself');
          }
          await spendIdentityBudget(ctx.db, target, caller.fingerprint, now);
          const answer = await handle({ db: ctx.db, target, caller, body, now });
          return reply.code(200).send(answer);
        });
      };

      route('card', (call) => cardOf(ctx, call.db, call.target, call.now));
      route('request', (call) => inbound.request(call));
      route('accept', (call) => inbound.accept(call));
      route('reject', (call) => inbound.reject(call));
      route('remove', (call) => inbound.remove(call));
      route('tools/list', (call) => inbound.toolsList(call, tools));
      route('tools/call', (call) => inbound.toolsCall(call, tools));
    },
    { prefix: PEER_PATH_PREFIX },
  );
}
