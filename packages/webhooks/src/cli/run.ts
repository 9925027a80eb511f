import { MAIN_HELP, SECRET_ENV } from './help';
import { listenCommand } from './listen-command';
import { redactSecrets } from './redact';
import { eventsCommand, triggerCommand } from './sandbox-commands';
import { API_KEY_ENV } from './service-api';
import { signCommand } from './sign-command';
import { UsageError } from './usage-error';
import { type CommandIo, verifyCommand } from './verify-command';
import { packageVersion } from './version';

/** Exit codes, as documented in --help. */
export const EXIT = { ok: 0, refused: 1, usage: 2, internal: 3 } as const;

/**
 * Every secret the process was given, wherever it came from, so that none is ever echoed back. `listen`
 * prints the listeners' signing secret on purpose, and a person often has it in SVC_WEBHOOK_SECRET (as the
 * guide suggests): that variable is an input of verify and sign only, so only they hide it.
 */
function secretsIn(argv: readonly string[], env: CommandIo['env']): string[] {
  const readsSigningSecret = argv[0] === 'verify' || argv[0] === 'sign';
  const secrets: string[] = [];
  argv.forEach((arg, index) => {
    for (const flag of ['--secret', '--api-key']) {
      if (arg === flag && index + 1 < argv.length) secrets.push(argv[index + 1]!);
      if (arg.startsWith(`${flag}=`)) secrets.push(arg.slice(flag.length + 1));
    }
  });
  for (const name of readsSigningSecret ? [SECRET_ENV, API_KEY_ENV] : [API_KEY_ENV]) {
    const fromEnv = env[name];
    if (fromEnv !== undefined) secrets.push(fromEnv);
  }
  return secrets;
}

/** Errors from `node:util` parseArgs (unknown option, missing value) are usage errors. */
function isParseArgsError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/** Runs one CLI invocation and returns its exit code; all output goes through `io`. */
export async function run(argv: readonly string[], io: CommandIo): Promise<number> {
  const secrets = secretsIn(argv, io.env);
  const safeIo: CommandIo = {
    ...io,
    stdout: (text) => io.stdout(redactSecrets(text, secrets)),
    stderr: (text) => io.stderr(redactSecrets(text, secrets)),
  };
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'verify':
        return await verifyCommand(rest, safeIo);
      case 'sign':
        return await signCommand(rest, safeIo);
      case 'listen':
        return await listenCommand(rest, safeIo);
      case 'trigger':
        return await triggerCommand(rest, safeIo);
      case 'events':
        return await eventsCommand(rest, safeIo);
      case 'help':
      case '--help':
      case '-h':
        safeIo.stdout(MAIN_HELP);
        return EXIT.ok;
      case 'version':
      case '--version':
      case '-v':
      case '-V':
        safeIo.stdout(`${packageVersion()}\n`);
        return EXIT.ok;
      case undefined:
        safeIo.stderr(MAIN_HELP);
        return EXIT.usage;
      default:
        throw new UsageError(
          `Unknown command "${command}"; the commands are verify, sign, listen, trigger and events.`,
        );
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      safeIo.stderr(`svc-webhooks: ${error.message}\nRun "svc-webhooks help" for usage.\n`);
      return EXIT.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    safeIo.stderr(`svc-webhooks: unexpected error (please report it): ${message}\n`);
    return EXIT.internal;
  }
}
