import { existsSync } from 'node:fs';
import { type Config, DEFAULT_DATA_DIR, DEFAULT_PORT, readConfig } from './config.js';
import { insecureOriginWarning } from './features/portal-static/cookie-warning.js';
import { SANDBOX_EMAIL, sandboxCards } from './features/sandbox/seed.js';
import { firstStartFileIn, firstStartSecretsFile, writeFirstStartSecrets } from './first-start-secrets.js';
import { createServiceLogger } from './http/logger.js';
import { isStartRefusal } from './runtime.js';
import { type RunningService, startService } from './server.js';

/**
 * The sandbox command for this instance: a second instance on its own port and data folder needs both
 * settings, or a command acts on the first.
 */
function sandboxCommand(service: RunningService, config: Config): string {
  const port = Number(new URL(service.baseUrl).port || DEFAULT_PORT);
  const own = [
    port === DEFAULT_PORT ? '' : `PORT=${port}`,
    config.dataDir === DEFAULT_DATA_DIR ? '' : `SVC_DATA_DIR=${config.dataDir}`,
  ].filter((setting) => setting !== '');
  return [...own, 'npm run sandbox --'].join(' ');
}

/** What a person starting the sandbox needs: where it listens and how to authenticate. */
function printBanner(service: RunningService, config: Config): void {
  const { dataDir } = config;
  const backend = config.databaseUrl ? 'PostgreSQL' : `PGlite in ${dataDir}`;
  const secretsFile = service.seed?.seeded ? firstStartSecretsFile(config) : undefined;
  const cli = sandboxCommand(service, config);
  const secrets = firstStartSecrets(service, cli);
  const lines = [
    '',
    `svc-kit reference service listening on ${service.baseUrl} (${backend})`,
    `OpenAPI document: ${service.baseUrl}/v1/openapi.json`,
    `Health: ${service.baseUrl}/healthz, readiness: ${service.baseUrl}/readyz`,
  ];
  if (service.metricsUrl) lines.push(`Prometheus metrics: ${service.metricsUrl}`);
  lines.push(...localTargetsLines(config));
  lines.push(
    '',
    ...portalBlock(
      service,
      firstStartFileIn(dataDir, config.databaseUrl),
      secretsFile !== undefined,
      config.databaseUrl ? undefined : dataDir,
    ),
  );
  if (secretsFile !== undefined) {
    writeFirstStartSecrets(secretsFile, dataDir, secrets);
    lines.push(
      `  the sandbox owner's e-mail, password, TOTP secret and an API key are in ${secretsFile}`,
      '  (readable by this user only; stdout is not a terminal, and logs keep what is printed)',
    );
  } else if (service.seed?.seeded) {
    lines.push(...secrets);
  } else if (service.seed) {
    lines.push(`  New API key for scripts: ${cli} mint-key`);
  }
  lines.push(
    `From a terminal instead of the portal, portal-only operations (createWebhook, minting keys) take:`,
    `  ${cli} session     (prints the Cookie and Origin headers to send)`,
    '',
  );
  console.log(lines.join('\n'));
}

/** The mode and why: whether localhost targets are accepted; an opt-in where others may reach us warns. */
function localTargetsLines(config: Config): string[] {
  const { reach } = config;
  if (reach.local) {
    return [
      `Mode: local sandbox, because ${reach.why}:`,
      '  webhook receivers, peers and MCP servers on localhost are accepted',
    ];
  }
  const optIns = [
    ['SVC_ALLOW_LOCALHOST_WEBHOOKS', config.allowLocalhostWebhooks],
    ['SVC_ALLOW_LOCALHOST_PEERS', config.peer.allowLocalhost],
    ['SVC_ALLOW_LOCALHOST_INTEGRATIONS', config.integrations.allowLocalhost],
  ].flatMap(([name, on]) => (on ? [`${name}=1`] : []));
  return [
    `Mode: reachable from elsewhere, because ${reach.why}:`,
    optIns.length === 0
      ? '  targets on localhost (webhook receivers, peers, MCP servers) are refused'
      : `  WARNING: ${optIns.join(', ')} admit targets on localhost although others may reach this service`,
  ];
}

/**
 * Where the portal is (the exact origin: `localhost` for `127.0.0.1` would be another site) and, on first
 * start, the sandbox owner's secrets, shown once.
 */
function portalBlock(
  service: RunningService,
  firstStartFile: string,
  secretsToFile: boolean,
  pgliteDir: string | undefined,
): string[] {
  const url = `${service.ctx.publicAddress.origin}/`;
  const lines = [
    '==== Portal ====',
    `  open ${url} in a browser (this exact address)`,
    ...insecureOriginWarning(service.ctx.publicAddress.origin),
  ];
  if (service.seed?.seeded) {
    lines.push(
      `  and sign in with the sandbox owner (shown once, ${secretsToFile ? 'in the file below' : 'below'}):`,
    );
  } else if (service.seed) {
    // Started without a terminal the first time, the password went to a file, not to the screen.
    const where = existsSync(firstStartFile) ? `in ${firstStartFile}` : 'printed on its first start';
    lines.push(
      `  the sandbox is already seeded: sign in as ${SANDBOX_EMAIL} with the password ${where},`,
      '  or sign up there for a workspace of your own',
    );
    // A password printed once and scrolled away cannot be shown again; on PGlite a new sandbox is cheap.
    if (!existsSync(firstStartFile) && pgliteDir !== undefined)
      lines.push(`  (password lost? stop the service, delete ${pgliteDir} and start again: a fresh sandbox)`);
  } else {
    lines.push('  sign in, or sign up where the operator opened it (SVC_SIGNUP=open)');
  }
  if (!service.portalBuilt)
    lines.push(`  (the portal is not built: npm run build -w @svc-kit/reference-service)`);
  return lines;
}

/** The first start's secrets of the sandbox owner: shown once, in the terminal or in a private file. */
function firstStartSecrets(service: RunningService, cli: string): string[] {
  if (!service.seed?.seeded) return [];
  const { password, totpSecret, apiKey } = service.seed;
  return [
    `    email:        ${SANDBOX_EMAIL}`,
    `    password:     ${password}`,
    `    TOTP secret:  ${totpSecret}  (add it to an authenticator app; or: ${cli} totp)`,
    `  API key (all scopes):  ${apiKey}  (for scripts; shown once)`,
    `  try: curl -H "Authorization: Bearer ${apiKey}" ${service.baseUrl}/v1/workspace/webhooks`,
  ];
}

/** The sandbox identities' cards, to paste into requestContact (see PEER-PROTOCOL.md). */
async function printSandboxCards(service: RunningService): Promise<void> {
  if (!service.seed) return;
  console.log('==== Contact cards of the sandbox identities (for requestContact) ====');
  for (const { slug, fingerprint, card } of await sandboxCards(service.ctx)) {
    console.log(`contact card of ${slug} (${fingerprint}):\n  ${card}`);
  }
}

async function main(): Promise<void> {
  const config = readConfig(process.env);
  const logger = createServiceLogger(config.logLevel);
  const service = await startService(config, logger);
  // Signals are handled from here on: the banner's cards are awaited, and a stop may come meanwhile.
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

  // What a newcomer needs first (address, portal, secrets, mode) before the long cards.
  printBanner(service, config);
  // A stop during the cards closes the database under them: their failure is the stop's, not a crash.
  await printSandboxCards(service).catch((error: unknown) => {
    if (!stopping) throw error;
  });
  if (!stopping) console.log('Ready. Ctrl-C stops the service.');
  // Logged once the banner is whole: the JSON line used to land between its headline and the cards.
  logger.info({ address: service.baseUrl }, 'service listening');
}

main().catch((error: unknown) => {
  // A refusal the operator can act on is its one line; anything else keeps its stack.
  console.error('cannot start:', isStartRefusal(error) ? error.message : error);
  process.exit(1);
});
