import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ServiceContext } from '../../context.js';
import { parse } from '../../http/parse.js';
import { authorize } from '../../http/policy.js';
import { signerFor } from '../../peer/own-identity.js';
import { identityOf } from '../shared/identity.js';

const identityPath = z.strictObject({ slug: z.string().min(1).max(64) });

/**
 * `GET /v1/identities/{slug}/card`: an identity's own contact card and fingerprint, for the portal's
 * "your card" box (the card someone else pastes into requestContact). The card is public once handed
 * out (the peer endpoint serves it by fingerprint); what this route adds is finding it by slug, so it is
 * limited to the identity's own workspace and to holders of service:contacts:read. Not part of the
 * contract: a service route like the portal's account routes.
 */
export function registerIdentityCardRoute(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/v1/identities/:slug/card', async (request) => {
    const now = ctx.now();
    const requirements = { permission: 'service:contacts:read', stepUp: false, suspended: false } as const;
    const { workspace } = await authorize(ctx, request, requirements, now);
    const { slug } = parse(identityPath, request.params, 'path parameters');
    const identity = await identityOf(ctx.db, workspace.id, slug);
    const signer = await signerFor(ctx.db, ctx.secretBox, identity, ctx.publicAddress.peerEndpoint, now);
    return { slug: identity.slug, fingerprint: signer.fingerprint, card: signer.card };
  });
}
