import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Queryable } from '../../store/db.js';
import {
  getIntegrationById,
  type IntegrationRow,
  updateIntegration,
} from '../../store/queries/integrations.js';
import type { SecretBox } from '../../store/secret-box.js';

/** The path of the route the authorization server sends the owner back to (see oauth-callback.ts). */
export const OAUTH_CALLBACK_PATH = '/oauth/integrations/callback';

/** Each sealed value is bound to the integration id and its column: a value copied elsewhere won't open. */
const bound = (row: { id: string }, what: string) => `${row.id}:${what}`;

interface StoredOAuthOptions {
  db: Queryable;
  box: SecretBox;
  row: IntegrationRow;
  redirectUri: string;
  /** Starting a ceremony: stored tokens are ignored so that the SDK goes to the authorization server. */
  fresh?: boolean;
  scope?: string | undefined;
}

/**
 * The SDK's OAuth client state kept in the integration row, sealed: the dynamic client registration, the
 * tokens and the PKCE verifier. The authorization URL is captured rather than followed: the service has
 * no browser, so it hands the URL to the owner (createIntegration, authorizeIntegration).
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  readonly #state = randomBytes(32).toString('base64url');

  // Private to the class at run time too: the options hold the secret box and the sealed row, which an
  // inspected or logged provider must not show.
  readonly #options: StoredOAuthOptions;

  constructor(options: StoredOAuthOptions) {
    this.#options = options;
  }

  get redirectUrl(): string {
    return this.#options.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'svc-kit reference service',
      redirect_uris: [this.#options.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.#options.scope === undefined ? {} : { scope: this.#options.scope }),
    };
  }

  state(): string {
    return this.#state;
  }

  async #current(): Promise<IntegrationRow> {
    return (await getIntegrationById(this.#options.db, this.#options.row.id)) ?? this.#options.row;
  }

  #open<T>(row: IntegrationRow, sealed: string | null, what: string): T | undefined {
    if (sealed === null) return undefined;
    return JSON.parse(this.#options.box.open(sealed, bound(row, what))) as T;
  }

  #seal(value: unknown, what: string): string {
    return this.#options.box.seal(JSON.stringify(value), bound(this.#options.row, what));
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const row = await this.#current();
    const stored = this.#open<{ redirect_uri: string; info: OAuthClientInformationMixed }>(
      row,
      row.oauth_client_enc,
      'oauth_client',
    );
    // A registration made for another callback address is of no use: register again.
    return stored?.redirect_uri === this.#options.redirectUri ? stored.info : undefined;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await updateIntegration(this.#options.db, this.#options.row.id, {
      oauth_client_enc: this.#seal({ redirect_uri: this.#options.redirectUri, info }, 'oauth_client'),
    });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.#options.fresh) return undefined;
    const row = await this.#current();
    return this.#open<OAuthTokens>(row, row.oauth_tokens_enc, 'oauth_tokens');
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await updateIntegration(this.#options.db, this.#options.row.id, {
      oauth_tokens_enc: this.#seal(tokens, 'oauth_tokens'),
    });
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  /** Stored with the state it belongs to: the callback finds the row by state, then uses this verifier. */
  async saveCodeVerifier(verifier: string): Promise<void> {
    await updateIntegration(this.#options.db, this.#options.row.id, {
      oauth_verifier_enc: this.#seal(verifier, 'oauth_verifier'),
      oauth_state: this.#state,
      oauth_redirect_uri: this.#options.redirectUri,
    });
  }

  async codeVerifier(): Promise<string> {
    const row = await this.#current();
    const verifier = this.#open<string>(row, row.oauth_verifier_enc, 'oauth_verifier');
    if (verifier === undefined) throw new Error('no authorization is in progress for this integration');
    return verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const all = scope === 'all';
    await updateIntegration(this.#options.db, this.#options.row.id, {
      ...(all || scope === 'client' ? { oauth_client_enc: null } : {}),
      ...(all || scope === 'tokens' ? { oauth_tokens_enc: null } : {}),
      ...(all || scope === 'verifier' ? { oauth_verifier_enc: null, oauth_state: null } : {}),
    });
  }
}
