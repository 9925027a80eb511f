import type { Reach } from './domain/local-targets.js';
import type { PasswordCost } from './domain/password.js';
import type { ResolveHost } from './domain/url-policy.js';
import type { WorkspaceRequests } from './domain/workspace-requests.js';
import type { PublicAddress } from './public-address.js';
import type { CredentialCache } from './store/credential-cache.js';
import type { Db } from './store/db.js';
import type { SecretBox } from './store/secret-box.js';

/**
 * What handlers, the delivery worker and the relay may use, built once by server.ts (or a test); types only.
 */
export interface ServiceContext {
  db: Db;
  secretBox: SecretBox;
  resolveHost: ResolveHost;
  /** Receivers on localhost: a local sandbox, or SVC_ALLOW_LOCALHOST_WEBHOOKS=1; never in production. */
  allowLocalhostWebhooks: boolean;
  /** Who may reach this instance, for the refusal of a receiver on localhost; unset: the rule in general. */
  reach?: Reach | undefined;
  /** This instance's public URL and origin: configuration or the listening address, never the request. */
  publicAddress: PublicAddress;
  now(): number;
  /** scrypt's cost for new password hashes; unset: the standard cost. */
  passwordCost?: PasswordCost | undefined;
  /** API keys seen recently, dropped on every announced change (see credential-cache.ts); unset: none kept. */
  credentials?: CredentialCache | undefined;
  /** Each workspace's budget of authenticated requests to this instance (domain/workspace-requests.ts); unset: none. */
  requests?: WorkspaceRequests | undefined;
}
