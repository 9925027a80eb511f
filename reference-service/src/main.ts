import { ConfigError, readConfig } from './config.js';
import { SANDBOX_EMAIL, sandboxCards } from './features/sandbox/seed.js';
import { createServiceLogger } from './http/logger.js';
import { type RunningService, startService } from './server.js';
import { DataDirLockedError } from './store/data-dir-lock.js';

const CLI = 'npm run sandbox -w @svc-kit/reference-service --';

/** What a person starting the sandbox needs: where it listens and how to authenticate. */
function printBanner(service: RunningService, backend: string, allowLocalhostWebhooks: boolean): void {
  const lines = [
    '',
    `svc-kit reference service listening on ${service.baseUrl} (${backend})`,
    `OpenAPI document: ${service.baseUrl}/v1/openapi.json`,
    `Health: ${service.baseUrl}/healthz, readiness: ${service.baseUrl}/readyz`,
  ];
  if (service.metricsUrl) lines.push(`Prometheus metrics: ${service.metricsUrl}`);
  if (allowLocalhostWebhooks) {
    lines.push(
      'WARNING: SVC_ALLOW_LOCALHOST_WEBHOOKS=1, webhook receivers on localhost are accepted (sandbox only)',
    );
  }
  lines.push('', ...portalBlock(service));
  if (service.seed?.seeded) {
    lines.push(
      `  API key (all scopes):  ${service.seed.apiKey}  (for scripts; shown once)`,
      `  try: curl -H "Authorization: Bearer ${service.seed.apiKey}" ${service.baseUrl}/v1/workspace/webhooks`,
    );
  } else if (service.seed) {
    lines.push(`  New API key for scripts: ${CLI} mint-key`);
  }
  lines.push(
    `From a terminal instead of the portal, portal-only operations (createWebhook, minting keys) take:`,
    `  ${CLI} session     (prints the Cookie and Origin headers to send)`,
    '',
  );
  console.log(lines.join('\n'));
}

/**
 * Where the portal is and how to get in: the exact origin (the portal's calls must come from it, so
 * `localhost` in place of `127.0.0.1` would be refused as another site), and on first start the sandbox
 * owner's secrets, shown once.
 */
function portalBlock(service: RunningService): string[] {
  const url = `${service.ctx.publicAddress.origin}/`;
  const lines = ['==== Portal ====', `  open ${url} in a browser (this exact address)`];
  if (service.seed?.seeded) {
    lines.push(
      '  and sign in with the sandbox owner (shown now and never again):',
      `    email:        ${SANDBOX_EMAIL}`,
      `    password:     ${service.seed.password}`,
      `    TOTP secret:  ${service.seed.totpSecret}  (add it to an authenticator app; or: ${CLI} totp)`,
    );
  } else if (service.seed) {
    lines.push(
      `  sign in as ${SANDBOX_EMAIL} with the password printed on the first start,`,
      '  or sign up there for a workspace of your own',
    );
  } else {
    lines.push('  sign in, or sign up where the operator opened it (SVC_SIGNUP=open)');
  }
  if (!service.portalBuilt)
    lines.push(`  (the portal is not built: npm run build -w @svc-kit/reference-service)`);
  return lines;
}

/** The sandbox identities' cards, to paste into requestContact (see PEER-PROTOCOL.md). */
async function printSandboxCards(service: RunningService): Promise<void> {
  if (!service.seed) return;
  for (const { slug, fingerprint, card } of await sandboxCards(
    service.ctx,
    service.ctx.publicAddress.baseUrl,
  )) {
    console.log(`contact card of ${slug} (${fingerprint}):\n  ${card}`);
  }
}

async function main(): Promise<void> {
  const config = readConfig(process.env);
  const logger = createServiceLogger(config.logLevel);
  const service = await startService(config, logger);
  await printSandboxCards(service);
  printBanner(
    service,
    config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`,
    config.allowLocalhostWebhooks,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal: the operator does not want to wait for in-flight requests.
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    console.error(`cannot start: ${error.message}`);
  } else {
    console.error('cannot start:', error);
  }
  process.exit(1);
});
