import { parseArgs } from 'node:util';
import { EVENTS_HELP, TRIGGER_HELP } from './help';
import { callService, ServiceRefusal, ServiceUnreachable, serviceTarget } from './service-api';
import { UsageError } from './usage-error';
import type { CommandIo } from './verify-command';

const CONNECTION = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Prints a refusal or a network failure in words; the exit code is 1. */
function explain(error: unknown, io: CommandIo, command: string): number {
  if (error instanceof ServiceRefusal) io.stderr(`svc-webhooks ${command}: ${error.describe()}\n`);
  else if (error instanceof ServiceUnreachable) io.stderr(`svc-webhooks ${command}: ${error.message}.\n`);
  else throw error;
  return 1;
}

/**
 * `--endpoint` takes an endpoint id (the contract's `whk_` prefix; a listener's id has it too). A URL or an
 * empty value is a mistake caught before the call; the value is not echoed, in case a secret was pasted.
 */
function checkEndpointId(value: string): void {
  if (value === '') throw new UsageError('--endpoint is empty.');
  if (!value.startsWith('whk_')) {
    throw new UsageError(
      '--endpoint takes an endpoint id, which starts with whk_ (the portal shows it on the endpoint’s page).',
    );
  }
}

/** `svc-webhooks trigger <type>`: emits a catalogued event through the sandbox route. */
export async function triggerCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { ...CONNECTION, identity: { type: 'string' }, endpoint: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    io.stdout(TRIGGER_HELP);
    return 0;
  }
  const [type, ...extra] = positionals;
  if (type === undefined)
    throw new UsageError('Name the event type, e.g. svc-webhooks trigger message.received');
  if (extra.length > 0) throw new UsageError(`One event type at a time (got ${positionals.join(' ')}).`);
  if (values.endpoint !== undefined) checkEndpointId(values.endpoint);
  const target = serviceTarget(values, io.env);
  try {
    const response = await callService(target, 'POST', '/sandbox/events', {
      body: {
        type,
        ...(values.identity === undefined ? {} : { identity: values.identity }),
        ...(values.endpoint === undefined ? {} : { endpoint: values.endpoint }),
      },
    });
    const { event } = (await response.json()) as { event: { id: string; type: string; identity: string } };
    io.stdout(`${event.id}  ${event.type}  (identity ${event.identity})\n`);
    return 0;
  } catch (error) {
    return explain(error, io, 'trigger');
  }
}

/** `svc-webhooks events`: the event types the workspace's endpoints may filter on. */
export async function eventsCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: CONNECTION, strict: true });
  if (values.help) {
    io.stdout(EVENTS_HELP);
    return 0;
  }
  const target = serviceTarget(values, io.env);
  try {
    const response = await callService(target, 'GET', '/v1/workspace/webhooks');
    const { events, enabled } = (await response.json()) as { events: string[]; enabled: boolean };
    io.stdout(events.map((name) => `${name}\n`).join(''));
    if (!enabled) {
      io.stderr(
        'Note: webhooks are switched off for this workspace; nothing is delivered until they are on.\n',
      );
    }
    return 0;
  } catch (error) {
    return explain(error, io, 'events');
  }
}
