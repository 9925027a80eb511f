import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { isFingerprint } from '../domain/contacts/keys.js';
import { unstorableJson } from '../http/hostile-input.js';
import type { ServiceContext } from '../http/service-context.js';
import { findKeyedIdentityByFingerprint, type KeyedIdentity } from '../store/queries/identity-keys.js';
import { type InboundCall, inbound, type OfferedToolsSource, PeerRefusal } from './inbound.js';
import { peerEndpointOf, signerFor } from './own-identity.js';
import { MAX_PEER_BODY_BYTES, PEER_PATH_PREFIX, type PeerVerb, peerBodies } from './protocol.js';
import type { PeerSettings } from './settings.js';
import { verifyPeerRequest } from './verify-request.js';

/** This instance's peer endpoint: the configured public URL, else the origin the request came in on. */
export function ownEndpoint(request: FastifyRequest, settings: PeerSettings): string {
  return peerEndpointOf(settings.publicUrl ?? `${request.protocol}://${request.host}`);
}

async function targetOf(ctx: ServiceContext, request: FastifyRequest): Promise<KeyedIdentity> {
  const { fingerprint } = request.params as { fingerprint: string };
  const target = isFingerprint(fingerprint)
    ? await findKeyedIdentityByFingerprint(ctx.db, fingerprint)
    : undefined;
  if (!target) throw new PeerRefusal(404, 'unknown_identity', 'no identity with this fingerprint here');
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
  settings: PeerSettings,
  /** The identity's offered tools (its integrations); none when left out. */
  tools?: OfferedToolsSource,
): Promise<void> {
  await app.register(
    async (peer) => {
      peer.removeContentTypeParser('application/json');
      peer.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: MAX_PEER_BODY_BYTES },
        (_request, text, done) => {
          const raw = typeof text === 'string' ? text : text.toString('utf8');
          // Kept raw for the signature, but never deeper than the /v1 bodies nor holding text the
          // database cannot store (any identity can sign, so this is not left to the signature).
          const refusal = unstorableJson(raw);
          if (refusal) return done(new PeerRefusal(400, 'invalid_request', refusal), undefined);
          done(null, raw);
        },
      );
      peer.setErrorHandler((error: Error, request, reply) => {
        if (error instanceof PeerRefusal) {
          return reply
            .code(error.status)
            .send({ error: { code: error.code, message: error.message, request_id: request.id } });
        }
        const status = (error as { statusCode?: number }).statusCode;
        if (status !== undefined && status >= 400 && status < 500) {
          return reply.code(400).send({
            error: {
              code: 'invalid_request',
              message: 'the request could not be read',
              request_id: request.id,
            },
          });
        }
        request.log.error({ err: error }, 'peer request failed');
        return reply.code(500).send({
          error: { code: 'internal_error', message: 'the service failed', request_id: request.id },
        });
      });

      // The card is public: this is how a party obtains a card to hand to requestContact.
      peer.get('/identities/:fingerprint/card', async (request) => {
        const target = await targetOf(ctx, request);
        const signer = await signerFor(
          ctx.db,
          ctx.secretBox,
          { id: target.identity_id, slug: target.slug },
          ownEndpoint(request, settings),
          ctx.now(),
        );
        return { card: signer.card };
      });

      const route = <V extends PeerVerb>(
        verb: V,
        handle: (
          call: InboundCall<z.output<(typeof peerBodies)[V]>>,
          request: FastifyRequest,
        ) => Promise<unknown>,
      ) => {
        peer.post(
          `/identities/:fingerprint/${verb}`,
          async (request: FastifyRequest, reply: FastifyReply) => {
            const now = ctx.now();
            const target = await targetOf(ctx, request);
            const raw = typeof request.body === 'string' ? request.body : '';
            let json: unknown;
            try {
              json = JSON.parse(raw);
            } catch {
              throw new PeerRefusal(400, 'invalid_request', 'the body is not JSON');
            }
            const parsed = peerBodies[verb].safeParse(json);
            if (!parsed.success) {
              throw new PeerRefusal(400, 'invalid_request', `the body is not a v1 ${verb} message`);
            }
            const body = parsed.data as z.output<(typeof peerBodies)[V]>;
            const caller = await verifyPeerRequest(ctx.db, request, raw, body.card, now);
            if (caller.fingerprint === target.fingerprint) {
              throw new PeerRefusal(400, 'invalid_request', 'an identity cannot call itself');
            }
            const answer = await handle({ db: ctx.db, target, caller, body, now }, request);
            return reply.code(200).send(answer);
          },
        );
      };

      route('card', async (call, request) => {
        const signer = await signerFor(
          call.db,
          ctx.secretBox,
          { id: call.target.identity_id, slug: call.target.slug },
          ownEndpoint(request, settings),
          call.now,
        );
        return { card: signer.card };
      });
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
