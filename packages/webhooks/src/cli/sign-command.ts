import { parseArgs } from 'node:util';
import { createTestHeaders, WebhookVerificationError } from '@svc-kit/webhooks';
import { SIGN_HELP } from './help';
import { readBodyFile, resolveCliSecrets, secondsFlag } from './inputs';
import { shellQuote } from './shell-quote';
import { UsageError } from './usage-error';
import type { CommandIo } from './verify-command';

const OPTIONS = {
  body: { type: 'string' },
  secret: { type: 'string', multiple: true },
  timestamp: { type: 'string' },
  'event-id': { type: 'string' },
  'event-type': { type: 'string' },
  'delivery-id': { type: 'string' },
  format: { type: 'string', default: 'headers' },
  url: { type: 'string', default: 'http://localhost:3000/webhooks' },
  help: { type: 'boolean', short: 'h' },
} as const;

const FORMATS = ['headers', 'json', 'curl'] as const;
type Format = (typeof FORMATS)[number];

function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

/** `x-service-event-id` → `X-Service-Event-Id`, as the service writes them. */
function displayName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}

function format(headers: Record<string, string>, as: Format, bodyPath: string, url: string): string {
  const entries = Object.entries(headers).map(([name, value]) => [displayName(name), value] as const);
  if (as === 'json') return `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`;
  if (as === 'headers') return entries.map(([name, value]) => `${name}: ${value}\n`).join('');
  const lines = [
    `curl -X POST ${shellQuote(url)}`,
    `-H ${shellQuote('Content-Type: application/json')}`,
    ...entries.map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`),
    `--data-binary ${shellQuote(`@${bodyPath}`)}`,
  ];
  return `${lines.join(' \\\n  ')}\n`;
}

/** `svc-webhooks sign`: prints the headers of a signed test delivery; usage errors throw `UsageError`. */
export async function signCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false });
  if (values.help === true) {
    io.stdout(SIGN_HELP);
    return 0;
  }
  const secrets = resolveCliSecrets(values.secret, io);
  if (values.body === undefined) throw new UsageError('--body <file|-> is required: the body to sign.');
  if (!isFormat(values.format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got "${values.format}").`);
  }
  const timestamp = secondsFlag(values.timestamp, '--timestamp');
  const body = await readBodyFile(values.body, io);

  let headers: Record<string, string>;
  try {
    headers = await createTestHeaders(body, {
      secret: secrets,
      timestamp,
      eventId: values['event-id'],
      eventType: values['event-type'],
      deliveryId: values['delivery-id'],
    });
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      throw new UsageError(
        error.reason === 'invalid_payload'
          ? 'The body has no string "id" and "type" to take the event headers from: pass --event-id and --event-type.'
          : error.message,
      );
    }
    throw error;
  }
  io.stdout(format(headers, values.format, values.body, values.url));
  if (values.format === 'curl' && values.body === '-') {
    io.stderr('Note: the body came from standard input; pipe the same bytes into curl (--data-binary @-).\n');
  }
  return 0;
}
