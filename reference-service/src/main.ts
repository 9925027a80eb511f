import { ConfigError, readConfig } from './config.js';
import { createServiceLogger } from './http/logger.js';
import { SANDBOX_EMAIL, sandboxCards } from './sandbox/seed.js';
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
  if (service.seed?.seeded) {
    lines.push(
      '',
      'Sandbox workspace created. These secrets are shown now and never again:',
      `  API key (all scopes):  ${service.seed.apiKey}`,
      `  owner login:           ${SANDBOX_EMAIL} / ${service.seed.password}`,
      `  owner TOTP secret:     ${service.seed.totpSecret}`,
      `  try: curl -H "Authorization: Bearer ${service.seed.apiKey}" ${service.baseUrl}/v1/workspace/webhooks`,
    );
  } else if (service.seed) {
    lines.push('', `Sandbox workspace already seeded. New API key: ${CLI} mint-key`);
  }
  lines.push(
    `Portal-only operations (createWebhook, POST /v1/workspace/keys) need a stepped-up session:`,
    `  ${CLI} session     (prints the Cookie and Origin headers to send)`,
    '',
  );
  console.log(lines.join('\n'));
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
  const config = readConfig();
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
