import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The strict policy the portal is built for (portal-api.md): its own scripts, styles and API only, images
 * also from `data:` (the MFA QR code), never framed, no <base>, forms only to itself. No inline script.
 */
export const PORTAL_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const NOT_BUILT = `The svc-kit portal is not built, so there is nothing to show here yet.

Build it and restart the service:

  npm run build -w @svc-kit/reference-service

(npm start builds it too.) The /v1 API answers meanwhile; its description is at /v1/openapi.json.
`;

/**
 * Serves the built portal at `/` (same origin as /v1, so the session cookie and the cross-site rule need
 * nothing more), each answer with the portal's security headers. Only files present at start are routes
 * (no wildcard): anything else falls to the service's 404, and /v1 routes are never shadowed. Hashed
 * assets are cached for a year; index.html is revalidated every time so a new build shows at once.
 * `dir` is the portal's Vite build (reference-service/dist/portal); unset or without index.html: the notice.
 */
export async function portalPlugin(
  app: FastifyInstance,
  options: { dir: string | undefined },
): Promise<void> {
  // Beside `nosniff`, which every answer carries (http/answer-headers.ts); static files keep them too.
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers({ 'content-security-policy': PORTAL_CSP, 'referrer-policy': 'no-referrer' });
  });
  const dir = options.dir;
  if (dir === undefined || !existsSync(join(dir, 'index.html'))) {
    app.get('/', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(NOT_BUILT));
    return;
  }
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    wildcard: false,
    index: 'index.html',
    decorateReply: false,
    dotfiles: 'deny',
    // Our own cache-control below, not send's `public, max-age=0`.
    cacheControl: false,
    setHeaders(res, path) {
      res.setHeader(
        'cache-control',
        /[/\\]assets[/\\]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
}
