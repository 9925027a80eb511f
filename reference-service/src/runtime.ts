import { rmSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { ServiceContext } from './context.js';
import { WorkspaceRequests } from './domain/workspace-requests.js';
import { ConfigError } from './env-settings.js';
import { createDnsResolve } from './outbound/dns-resolve.js';
import { PublicAddress } from './public-address.js';
import { DataDirLockedError } from './store/data-dir-lock.js';
import { openStore } from './store/open.js';
import { createSecretBox } from './store/secret-box.js';
import { loadSecretKey } from './store/secret-key.js';
import { checkSecretKey, SecretKeyMismatchError } from './store/secret-key-check.js';
import { DatabaseUnreachableError } from './store/unreachable.js';

/**
 * A start refused for a reason a person fixes (a setting, a data dir in use, an at-rest key that does not
 * open the secrets, an unreachable database): printed as its message, without a stack.
 */
export function isStartRefusal(error: unknown): error is Error {
  return (
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof SecretKeyMismatchError ||
    error instanceof DatabaseUnreachableError
  );
}

/** Opens the store and builds the context shared by the server and the admin CLI. */
export async function openRuntime(config: Config, logger: Logger) {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onConnectionLost: (error) =>
      logger.warn({ err: error }, 'a database connection was lost; a new one is opened when needed'),
  });
  const atRest = loadSecretKey(config.secretKey, config.dataDir);
  const secretBox = createSecretBox(atRest.key);
  try {
    await checkSecretKey(store.db, secretBox, atRest);
  } catch (error) {
    // A key generated for a database that already had one would only mislead the next start.
    if (atRest.generatedFile) rmSync(atRest.generatedFile, { force: true });
    await store.close();
    throw error;
  }
  const ctx: ServiceContext = {
    db: store.db,
    secretBox,
    resolveHost: createDnsResolve({ servers: config.dnsServers }),
    allowLocalhostWebhooks: config.allowLocalhostWebhooks,
    reach: config.reach,
    publicAddress: new PublicAddress({ publicUrl: config.publicUrl, publicOrigin: config.publicOrigin }),
    now: () => Date.now(),
    passwordCost: config.passwordCost,
    requests:
      config.workspaceRequestRate > 0 ? new WorkspaceRequests(config.workspaceRequestRate) : undefined,
  };
  return { ctx, store };
}
