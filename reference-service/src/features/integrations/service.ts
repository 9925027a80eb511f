import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@svc-kit/contract';
import { limitBucket } from '../../domain/door-limits.js';
import { RateLimitedError } from '../../domain/errors.js';
import {
  hostBucket,
  UPSTREAM_HOST_BUDGETS,
  upstreamHost,
  workspaceHostBucket,
} from '../../domain/upstream-host-limits.js';
import type { ResolveHost } from '../../domain/url-policy.js';
import { spendBudget, spendGuess } from '../../http/budget-guard.js';
import { createGuardedFetch, type GuardedFetch } from '../../outbound/guarded-fetch.js';
import type { PublicAddress } from '../../public-address.js';
import type { Db, Queryable } from '../../store/db.js';
import {
  type IntegrationRow,
  listIntegrationRows,
  updateIntegration,
} from '../../store/queries/integrations.js';
import type { SecretBox } from '../../store/secret-box.js';
import { OAUTH_CALLBACK_PATH, StoredOAuthProvider } from './oauth-provider.js';
import { boundedResult, offeredTools, UPSTREAM_EXCHANGES } from './rules.js';
import type { IntegrationSettings } from './settings.js';
import { listUpstreamTools, type UpstreamTarget, withDeadline, withUpstream } from './upstream.js';
import { classifyFailure, type UpstreamFailure } from './upstream-failure.js';

/** The outcome of one connection to list an upstream's tools. */
export interface Refreshed {
  tools: Tool[] | undefined;
  failure: UpstreamFailure | undefined;
  /** Set when the upstream needs OAuth and a ceremony was started on the way. */
  authorizationUrl: string | undefined;
}

/** The sealed static credential is bound to the integration id, like the OAuth state. */
export const authBinding = (id: string) => `${id}:auth`;

/**
 * Everything that talks to upstream MCP servers, shared by the /v1 handlers, the OAuth callback and the
 * peer protocol's tool verbs. One guarded HTTP agent per service instance; one MCP session per exchange
 * (connect, do one thing, disconnect), so nothing is held open between requests.
 *
 * The handlers pass the database handle they were given (mode `own`: the pool, never a transaction, since
 * an upstream call happens in between and PGlite has one connection). `db` of the constructor serves the
 * peer protocol's tool verbs and any caller that passes no handle of its own.
 */
export class IntegrationService {
  readonly #guarded: GuardedFetch;

  constructor(
    readonly db: Db,
    readonly box: SecretBox,
    readonly settings: IntegrationSettings,
    readonly resolveHost: ResolveHost,
    /** Where the OAuth callback is reached: configuration, never the request (see public-address.ts). */
    readonly publicAddress: PublicAddress,
  ) {
    this.#guarded = createGuardedFetch(
      { resolve: resolveHost, allowLocalhost: settings.allowLocalhost },
      settings.timeoutMs,
    );
  }

  close(): Promise<void> {
    return this.#guarded.close();
  }

  /**
   * The upstream as stored: its static header, or the OAuth state kept in the row. A static credential is
   * the whole story. OAuth is attached once tokens exist (or for a caller that may start a ceremony): an
   * exchange in the background never registers a client.
   */
  #target(
    db: Queryable,
    row: IntegrationRow,
    options: { transport?: UpstreamTarget['transport']; mayStartAuthorization?: boolean },
  ) {
    const auth =
      row.auth_enc === null
        ? undefined
        : (JSON.parse(this.box.open(row.auth_enc, authBinding(row.id))) as { header: string; value: string });
    const authProvider =
      !auth && (options.mayStartAuthorization || row.oauth_tokens_enc !== null)
        ? this.oauthProvider(db, row)
        : undefined;
    const target: UpstreamTarget = {
      endpoint: row.endpoint,
      transport: options.transport ?? (row.transport === 'sse' ? 'sse' : 'streamable-http'),
      headers: auth ? { [auth.header]: auth.value } : {},
      ...(authProvider ? { authProvider } : {}),
    };
    return { target, authProvider };
  }

  /**
   * The SDK's OAuth state of `row`, kept in the row. A ceremony started (`start`) gives the authorization
   * server this instance's callback address; one under way keeps the address it was started with.
   */
  oauthProvider(db: Queryable, row: IntegrationRow, start?: { scope: string | undefined }) {
    const redirectUri =
      (start ? undefined : row.oauth_redirect_uri) ?? `${this.publicAddress.baseUrl}${OAUTH_CALLBACK_PATH}`;
    return new StoredOAuthProvider({
      db,
      box: this.box,
      row,
      redirectUri,
      fresh: !!start,
      scope: start?.scope,
    });
  }

  /** Connects, lists the tools and records the outcome (status, trouble, catalog) on the row. */
  async refresh(
    row: IntegrationRow,
    now: number,
    options: {
      /** The handler's database handle (the pool: the upstream call happens outside any transaction). */
      db: Queryable;
      transport?: UpstreamTarget['transport'];
      /** createIntegration: an upstream asking for OAuth starts the ceremony (discovery, registration). */
      mayStartAuthorization?: boolean;
    },
  ): Promise<Refreshed> {
    const db = options.db;
    // Refused here, the caller answers 429 and nothing of the row is touched.
    await this.spendHost(row, now);
    const { target, authProvider } = this.#target(db, row, options);
    try {
      const tools = await withUpstream(target, this.#guarded, this.settings, (client) =>
        listUpstreamTools(client, this.settings.timeoutMs),
      );
      await updateIntegration(db, row.id, {
        status: 'healthy',
        trouble: null,
        catalog: JSON.stringify(tools),
        updated_at: now,
        ...(options.transport === undefined ? {} : { transport: options.transport }),
      });
      return { tools, failure: undefined, authorizationUrl: undefined };
    } catch (error) {
      const failure = classifyFailure(error);
      await this.recordFailure(row, failure, now, db);
      return { tools: undefined, failure, authorizationUrl: authProvider?.authorizationUrl?.href };
    }
  }

  /** Records a failed exchange's status and words on the row (unchanged rows are not rewritten). */
  async recordFailure(
    row: IntegrationRow,
    failure: UpstreamFailure,
    now: number,
    db: Queryable,
  ): Promise<void> {
    if (row.status === failure.status && row.trouble === failure.message) return;
    await updateIntegration(db, row.id, {
      status: failure.status,
      trouble: failure.message,
      updated_at: now,
    });
  }

  /**
   * One exchange with an authorization server, through the guarded agent, under the exchange deadline;
   * spent against the budgets of the upstream's host first (its metadata leads there).
   */
  async exchange<T>(row: IntegrationRow, now: number, work: (fetch: FetchLike) => Promise<T>): Promise<T> {
    await this.spendHost(row, now);
    return withDeadline(this.#guarded, this.settings, work);
  }

  /**
   * Spends one exchange of the upstream's host, and of the workspace's share of it, all or none, before
   * anything is dialled (domain/upstream-host-limits.ts): RateLimitedError when either is empty. Per
   * exchange rather than per request: the refusal then comes before an MCP session is opened upstream or
   * a row is written, and costs one transaction however many requests the exchange makes. Always on the
   * service's own pool, which no caller holds a transaction of while it talks to an upstream.
   */
  async spendHost(row: Pick<IntegrationRow, 'endpoint' | 'workspace_id'>, now: number): Promise<void> {
    const host = upstreamHost(row.endpoint);
    const budgets = this.settings.hostBudgets ?? UPSTREAM_HOST_BUDGETS;
    await spendGuess(
      this.db,
      [
        [workspaceHostBucket(row.workspace_id, host), budgets.perWorkspaceOnHost],
        [hostBucket(host), budgets.perHost],
      ],
      now,
    );
  }

  /** The tools an identity's exposures offer its contacts right now (read on every call). */
  async offered(identityId: string) {
    return offeredTools(await listIntegrationRows(this.db, identityId));
  }

  /** Forwards one call to the upstream that offers `name`; undefined when no exposure offers it. */
  async call(
    identityId: string,
    name: string,
    args: Record<string, unknown> | undefined,
    now: number,
  ): Promise<{ ok: boolean; result: unknown } | undefined> {
    const tool = (await this.offered(identityId)).find((candidate) => candidate.name === name);
    if (!tool) return undefined;
    const row = tool.integration;
    try {
      await this.spendHost(row, now);
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
      // The peer's answer for an upstream it cannot reach right now, with when to try again; the row is
      // left as it is (the upstream itself was not tried).
      const result = {
        error: 'upstream_failed',
        status: 'unreachable',
        message: error.message,
        retry_after: error.retryAfterSeconds,
      };
      return { ok: false, result };
    }
    try {
      const { target } = this.#target(this.db, row, {});
      const call =
        args === undefined ? { name: tool.upstreamName } : { name: tool.upstreamName, arguments: args };
      const result = await withUpstream(target, this.#guarded, this.settings, (client) =>
        client.callTool(call, undefined, { timeout: this.settings.timeoutMs }),
      );
      if (row.status !== 'healthy') {
        await updateIntegration(this.db, row.id, { status: 'healthy', trouble: null, updated_at: now });
      }
      // `ok` is false when the tool itself reports an error (`isError`).
      return boundedResult({ ok: result.isError !== true, result });
    } catch (error) {
      const failure = classifyFailure(error);
      // The peer protocol's tool call runs on the service's own pool (no handler handle reaches it).
      await this.recordFailure(row, failure, now, this.db);
      return {
        ok: false,
        result: { error: 'upstream_failed', status: failure.status, message: failure.message },
      };
    }
  }
}

/** One of the workspace's exchanges with upstreams (`UPSTREAM_EXCHANGES`), spent before the upstream is dialled. */
export async function spendExchange(db: Queryable, workspaceId: string, now: number): Promise<void> {
  await spendBudget(db, limitBucket('upstream-exchanges', workspaceId), UPSTREAM_EXCHANGES, now);
}
