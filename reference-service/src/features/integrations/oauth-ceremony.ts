import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { RateLimitedError, ServiceError } from '../../domain/errors.js';
import type { Db, Queryable } from '../../store/db.js';
import { refuseOverBacklog } from '../../store/queries/backlog.js';
import {
  findIntegrationByOAuthState,
  getIntegrationById,
  type IntegrationRow,
} from '../../store/queries/integrations.js';
import { recordAuthorized } from './records.js';
import type { IntegrationService } from './service.js';
import { classifyFailure } from './upstream-failure.js';

// The OAuth ceremony of an integration, on the handle its caller passes: started by authorizeIntegration,
// finished by the callback. Every exchange goes through the service's guarded agent (service.exchange).

/**
 * Starts an OAuth ceremony (discovery, dynamic client registration, PKCE) and answers where the owner
 * goes. Stored tokens are not used: asking to authorize means asking again. An upstream that fails or
 * does not speak OAuth is a 502, in the words of classifyFailure only.
 */
export async function startAuthorization(
  service: IntegrationService,
  db: Queryable,
  row: IntegrationRow,
  scope: string | undefined,
  now: number,
): Promise<string> {
  const provider = service.oauthProvider(db, row, { scope });
  const refused = (why: string) =>
    new ServiceError('upstream_failed', `the upstream’s OAuth could not be started: ${why}`);
  try {
    await service.exchange(row, now, (fetchFn) =>
      auth(provider, { serverUrl: row.endpoint, ...(scope === undefined ? {} : { scope }), fetchFn }),
    );
  } catch (error) {
    // The upstream's host is at its budget: 429, nothing was dialled.
    if (error instanceof RateLimitedError) throw error;
    throw refused(classifyFailure(error).message);
  }
  if (!provider.authorizationUrl)
    throw refused('the authorization server sent no address to send the owner to');
  return provider.authorizationUrl.href;
}

/**
 * The callback's half: trades the code for tokens (stored sealed by the provider), forgets the verifier
 * and state, lists the tools with the new tokens, and records `integration.authorized`.
 */
export async function finishAuthorization(
  service: IntegrationService,
  db: Db,
  state: string,
  code: string,
  now: number,
): Promise<IntegrationRow | undefined> {
  const row = await findIntegrationByOAuthState(db, state);
  if (!row || row.oauth_redirect_uri === null) return undefined;
  // Before the code is traded (single-use): refused, the same callback may be loaded again later.
  await refuseOverBacklog(db, [row.workspace_id], now);
  const provider = service.oauthProvider(db, row);
  try {
    await service.exchange(row, now, (fetchFn) =>
      auth(provider, { serverUrl: row.endpoint, authorizationCode: code, fetchFn }),
    );
  } catch (error) {
    // The host's budget refused before the code was traded: the callback may be loaded again later.
    if (error instanceof RateLimitedError) throw error;
    const failure = classifyFailure(error);
    await service.recordFailure(row, failure, now, db);
    throw failure;
  }
  await db.transaction((tx) => recordAuthorized(tx, row, now));
  const fresh = (await getIntegrationById(db, row.id)) ?? row;
  // Authorized whatever the host's budget says now: the catalog is then listed by the next getExposure.
  await service.refresh(fresh, now, { db }).catch((error: unknown) => {
    if (!(error instanceof RateLimitedError)) throw error;
  });
  return fresh;
}
