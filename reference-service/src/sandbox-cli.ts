import pino from 'pino';
import { readConfig } from './config.js';
import { ADMIN_COMMANDS, AdminUsageError, runAdminCommand } from './features/sandbox/admin.js';
import { sendAdminCommand } from './features/sandbox/admin-socket.js';
import { isStartRefusal, openRuntime } from './runtime.js';

const USAGE = `usage: npm run sandbox -- <command>

commands:
  seed                  create the sandbox workspace if it does not exist (prints its API key once)
  mint-key [scopes]     mint a new API key for the sandbox owner (comma-separated scopes; default all)
  session               open a stepped-up session and print its Cookie and Origin headers (portal-only operations)
  totp                  print the sandbox owner's current TOTP code (for POST /v1/sessions/step-up)
  webhooks on|off       switch the sandbox workspace's webhooks_enabled flag
  suspend | unsuspend   suspend the sandbox workspace or lift the suspension
  deletion-hold on|off  put the sandbox workspace on deletion hold or lift it
  trigger <type> [--identity slug]
                        emit one catalogued event (default identity: sandbox-alice) and deliver it
  create-workspace <name> --owner <email>
                        create a workspace and its owner (also where sign-up is closed, in production);
                        prints a one-time link on which the owner sets a password`;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  if (!(ADMIN_COMMANDS as readonly string[]).includes(command)) {
    console.error(`unknown command ${command}\n\n${USAGE}`);
    return 1;
  }
  const config = readConfig(process.env);
  if (!config.databaseUrl) {
    // A running server owns the PGlite data dir: ask it.
    const answer = await sendAdminCommand(config.dataDir, command, args);
    if (answer) {
      (answer.ok ? console.log : console.error)(answer.text);
      return answer.ok ? 0 : 1;
    }
  }
  const logger = pino({ level: 'warn' });
  const { ctx, store } = await openRuntime(config, logger);
  // No server here: the sandbox's public address is where the server listens with this configuration.
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  ctx.publicAddress.settle(`http://${host}:${config.port}`);
  try {
    console.log(await runAdminCommand(ctx, command, args));
    return 0;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A refusal the operator can act on is its one line; anything else keeps its stack.
    console.error(error instanceof AdminUsageError || isStartRefusal(error) ? error.message : error);
    process.exitCode = 1;
  },
);
