import type { ErrorCode } from '@svc-kit/contract';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { limitBucket, OAUTH_STATE_GUESSES } from '../../domain/door-limits.js';
import { RateLimitedError, ServiceError } from '../../domain/errors.js';
import { limitedAddress } from '../../domain/sign-in-limits.js';
import { spendGuess } from '../../http/budget-guard.js';
import { isNavigation, sendCallbackRefusal } from '../portal-static/callback-page.js';
import { carriesBinding, clearBindingCookie, setBindingCookie } from './oauth-binding.js';
import { finishAuthorization } from './oauth-ceremony.js';
import { OAUTH_CALLBACK_PATH } from './oauth-provider.js';
import type { IntegrationService } from './service.js';
import { UpstreamFailure } from './upstream-failure.js';

/**
 * Where the upstream's authorization server sends the owner back (`redirect_uri`). No session is needed:
 * the `state` value, random and single-use, names the integration whose ceremony is completed. The code is
 * exchanged with the stored PKCE verifier; the tokens are stored sealed. Every callback must also carry the
 * binding cookie of that state (oauth-binding.ts), checked before the state is looked up: whatever a
 * request says about itself (`Sec-Fetch-*` or their absence) is the sender's to choose, so a program
 * presents the cookie it was handed with the authorization URL, as a browser does.
 */
export function registerOAuthCallback(
  app: FastifyInstance,
  ctx: Pick<ServiceContext, 'db' | 'now'>,
  service: IntegrationService,
) {
  app.addHook('onSend', setBindingCookie);
  // The query carries the authorization code: the route logs no request lines (warnings and errors only).
  app.get(OAUTH_CALLBACK_PATH, { logLevel: 'warn' }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const state = typeof query.state === 'string' ? query.state : undefined;
    const code = typeof query.code === 'string' ? query.code : undefined;
    const refuse = (why: ErrorCode, message: string) =>
      sendCallbackRefusal(request, reply, new ServiceError(why, message));
    if (typeof query.error === 'string') {
      // Only an OAuth error code (RFC 6749 4.1.2.1) is repeated; any other text is not ours to echo.
      const named = /^[a-z_]{1,64}$/.test(query.error) ? ` (${query.error})` : '';
      return refuse('invalid_request', `the authorization server refused${named}`);
    }
    if (state === undefined || code === undefined || state.length > 128 || code.length > 4096) {
      return refuse('invalid_request', 'the callback needs `code` and `state`');
    }
    // A refusal reaches a person's browser as a page in words (callback-page.ts), a program as JSON.
    if (!carriesBinding(request, state))
      return refuse(
        'forbidden',
        'this authorization was started in another browser (no binding cookie of its state came with it); start it again from the Integrations page here',
      );
    // A state that names no waiting authorization is a guess (or a replay): counted per client address,
    // 429 past the budget; the token comes back when the state was right.
    const bucket = limitBucket('oauth-state', limitedAddress(request.ip));
    let giveBack: (() => Promise<void>) | undefined;
    try {
      giveBack = await spendGuess(ctx.db, [[bucket, OAUTH_STATE_GUESSES]], ctx.now());
      const row = await finishAuthorization(service, ctx.db, state, code, ctx.now());
      if (!row) return refuse('not_found', 'no authorization is waiting for this state');
      await giveBack();
      clearBindingCookie(reply);
      // A person's browser goes back to the portal's integrations page; a program gets the JSON answer.
      if (isNavigation(request)) {
        return reply.redirect(`/#/integrations/authorized/${encodeURIComponent(row.slug)}`, 303);
      }
      return reply.code(200).send({ status: 'authorized', integration: row.slug });
    } catch (error) {
      if (error instanceof RateLimitedError) {
        // Past the guesses' budget; or the state was right, but the workspace's delivery backlog
        // refused: not a guess.
        await giveBack?.();
        return sendCallbackRefusal(request, reply, error);
      }
      if (error instanceof UpstreamFailure) {
        await giveBack?.();
        // The upstream failed, not the caller's arguments: 502, in the service's own words.
        return refuse('upstream_failed', `the authorization failed: ${error.message}`);
      }
      throw error;
    }
  });
}
