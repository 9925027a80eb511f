import { parseArgs } from 'node:util';
import { DEFAULT_TOLERANCE_SECONDS, HEADER_NAMES } from '@svc-kit/webhooks';
import { type CheckSettings, type Diagnosis, diagnose } from './diagnose';
import { EXPLANATIONS } from './explain';
import { type CapturedHeaders, parseHeadersFile } from './headers-file';
import { SECRET_ENV, VERIFY_HELP } from './help';
import {
  type CliEnvironment,
  parseWholeNumber,
  readBodyFile,
  readTextFile,
  resolveCliSecrets,
  secondsFlag,
} from './inputs';
import { UsageError } from './usage-error';

export interface CommandIo extends CliEnvironment {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether to colour the output (a terminal, and NO_COLOR unset). */
  readonly colour?: boolean;
  /** Calls `handler` on Ctrl-C (and SIGTERM); returns a function that stops listening. */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

const OPTIONS = {
  body: { type: 'string' },
  headers: { type: 'string' },
  signature: { type: 'string' },
  'event-id': { type: 'string' },
  'event-type': { type: 'string' },
  secret: { type: 'string', multiple: true },
  tolerance: { type: 'string' },
  now: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function readHeaders(values: {
  headers?: string | undefined;
  signature?: string | undefined;
  'event-id'?: string | undefined;
  'event-type'?: string | undefined;
}): Promise<CapturedHeaders> {
  if (values.headers !== undefined) {
    if (values.signature !== undefined)
      throw new UsageError('Give either --headers or --signature, not both.');
    if (values['event-id'] !== undefined || values['event-type'] !== undefined) {
      throw new UsageError(
        '--event-id and --event-type go with --signature; with --headers they come from the file.',
      );
    }
    return parseHeadersFile(await readTextFile(values.headers, 'headers'), values.headers);
  }
  if (values.signature === undefined) {
    throw new UsageError('Give the headers: --headers <file>, or --signature <X-Service-Signature value>.');
  }
  const headers: CapturedHeaders = { [HEADER_NAMES.signature]: values.signature };
  if (values['event-id'] !== undefined) headers[HEADER_NAMES.eventId] = values['event-id'];
  if (values['event-type'] !== undefined) headers[HEADER_NAMES.eventType] = values['event-type'];
  return headers;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function describeAge(ageSeconds: number): string {
  if (ageSeconds === 0) return 'signed this very second';
  return ageSeconds > 0
    ? `signed ${plural(ageSeconds, 'second')} ago`
    : `dated ${plural(-ageSeconds, 'second')} ahead`;
}

function describeMatch(diagnosis: Diagnosis, secretCount: number, secretSource: string): string {
  const match = diagnosis.match;
  if (match === undefined) {
    return secretCount === 1
      ? `no v1 value matches the secret (${secretSource})`
      : `no v1 value matches any of the ${secretCount} secrets (${secretSource})`;
  }
  const signatures = diagnosis.header?.signatures.length ?? 1;
  const which =
    secretCount === 1
      ? `the secret (${secretSource})`
      : `secret #${match.secret} of ${secretCount} (${secretSource})`;
  return `v1 value #${match.signature} of ${signatures} matches ${which}`;
}

function report(
  diagnosis: Diagnosis,
  settings: CheckSettings,
  secretSource: string,
  headers: CapturedHeaders,
): string {
  const lines: string[] = [];
  const { event, error } = diagnosis;
  if (event !== undefined) {
    lines.push('ACCEPTED: the delivery is authentic and within the time tolerance.');
    lines.push(`  event:     ${event.id} (${event.type}) for identity ${event.identity}`);
  } else if (error !== undefined) {
    const explanation = EXPLANATIONS[error.reason];
    lines.push(`REFUSED (${error.reason}): ${explanation.meaning}`);
    lines.push(`  detail:    ${error.message}`);
    for (const hint of diagnosis.hints) lines.push(`  likely:    ${hint}`);
    lines.push(`  fix:       ${explanation.fix}`);
    if (error.reason === 'missing_header') {
      const names = Object.keys(headers);
      lines.push(`  headers:   ${names.length === 0 ? '(none found)' : names.join(', ')}`);
    }
  }
  if (diagnosis.header !== undefined) {
    lines.push(`  signature: ${describeMatch(diagnosis, settings.secrets.length, secretSource)}`);
  }
  if (diagnosis.ageSeconds !== undefined && diagnosis.header !== undefined) {
    lines.push(
      `  timestamp: t=${diagnosis.header.timestamp}, ${describeAge(diagnosis.ageSeconds)} ` +
        `(tolerance ${settings.toleranceSeconds} s either way)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `svc-webhooks verify`: 0 accepted, 1 refused; usage errors are thrown as `UsageError`. */
export async function verifyCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false });
  if (values.help === true) {
    io.stdout(VERIFY_HELP);
    return 0;
  }
  const secrets = resolveCliSecrets(values.secret, io);
  if (values.body === undefined)
    throw new UsageError('--body <file> is required: the raw body exactly as received.');
  const toleranceSeconds = parseWholeNumber(values.tolerance, '--tolerance', 1) ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = secondsFlag(values.now, '--now');
  const headers = await readHeaders(values);
  const body = await readBodyFile(values.body, io);

  const settings: CheckSettings = {
    secrets,
    toleranceSeconds,
    nowMs: nowSeconds === undefined ? Date.now() : nowSeconds * 1000,
  };
  const diagnosis = diagnose({ body, headers }, settings);
  const secretSource =
    values.secret !== undefined && values.secret.length > 0 ? 'from --secret' : `from ${SECRET_ENV}`;
  io.stdout(report(diagnosis, settings, secretSource, headers));
  return diagnosis.event !== undefined ? 0 : 1;
}
