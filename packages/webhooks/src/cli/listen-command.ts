import { parseArgs } from 'node:util';
import { adviceFor, forwardToLocal, type LocalOutcome } from './forward';
import { LISTEN_HELP } from './help';
import {
  callService,
  ServiceRefusal,
  type ServiceTarget,
  ServiceUnreachable,
  serviceTarget,
} from './service-api';
import { readSse } from './sse';
import { clockTime, type Paint, paint } from './terminal';
import { UsageError } from './usage-error';
import type { CommandIo } from './verify-command';

const OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  'print-secret': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Signatures older than the receivers' 300-second tolerance are refused: warn well before that. */
const CLOCK_SKEW_WARNING_MS = 60_000;
const MAX_BACKOFF_MS = 30_000;

interface Ready {
  listener_id: string;
  secret: string;
  events: string[];
  status: string;
  resumed: boolean;
  server_time: number;
  webhooks_enabled?: boolean;
}

interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  headers: Record<string, string>;
  body: string;
}

function checkForwardTo(raw: string | undefined): string {
  if (raw === undefined) {
    throw new UsageError('--forward-to is required, for example --forward-to http://localhost:3000/webhooks');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to ${raw} is not a URL (for example http://localhost:3000/webhooks).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--forward-to must be an http or https URL, not ${url.protocol}`);
  }
  return url.href;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Why the loop stopped for good; the exit code follows from it. */
class Stop extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

export async function listenCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false });
  if (values.help) {
    io.stdout(LISTEN_HELP);
    return 0;
  }
  const target = serviceTarget(values, io.env);
  if (values['print-secret']) {
    const response = await callService(target, 'GET', '/relay/v1/secret').catch(rethrowForPerson);
    const { secret } = (await response.json()) as { secret: string };
    io.stdout(`${secret}\n`);
    return 0;
  }
  const forwardTo = checkForwardTo(values['forward-to']);
  const events = (values.events ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return new Listener(target, forwardTo, events, io).run();
}

function rethrowForPerson(error: unknown): never {
  if (error instanceof ServiceRefusal) throw new Stop(1, error.describe());
  if (error instanceof ServiceUnreachable) throw new Stop(1, `${error.message}.`);
  throw error;
}

/** One `listen` session: connects, forwards every relayed delivery, reconnects, closes on Ctrl-C. */
class Listener {
  readonly #abort = new AbortController();
  readonly #paint: Paint;
  #listenerId: string | undefined;
  #connectedOnce = false;
  #failures = 0;

  constructor(
    private readonly target: ServiceTarget,
    private readonly forwardTo: string,
    private readonly events: readonly string[],
    private readonly io: CommandIo,
  ) {
    this.#paint = paint(io.colour ?? false);
  }

  async run(): Promise<number> {
    const stopListening = this.io.onInterrupt?.(() => this.#abort.abort());
    try {
      while (!this.#abort.signal.aborted) {
        await this.#session();
        if (this.#abort.signal.aborted) break;
        const wait = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** Math.min(this.#failures, 5));
        this.#failures++;
        this.io.stderr(this.#paint.yellow(`Reconnecting in ${Math.round(wait / 1000)} s...\n`));
        await sleep(wait, this.#abort.signal);
      }
      await this.#close();
      return 0;
    } catch (error) {
      if (error instanceof Stop) {
        this.io.stderr(`${this.#paint.red(`svc-webhooks listen: ${error.message}`)}\n`);
        return error.exitCode;
      }
      throw error;
    } finally {
      stopListening?.();
    }
  }

  /** One connection, until it drops or is ended; throws `Stop` for what reconnecting cannot fix. */
  async #session(): Promise<void> {
    const query = new URLSearchParams();
    if (this.events.length > 0) query.set('events', this.events.join(','));
    if (this.#listenerId !== undefined) query.set('listener', this.#listenerId);
    let response: Response;
    try {
      response = await callService(this.target, 'GET', `/relay/v1/listen?${query}`, {
        stream: true,
        signal: this.#abort.signal,
      });
    } catch (error) {
      if (this.#abort.signal.aborted) return;
      if (error instanceof ServiceRefusal && error.status === 404 && this.#listenerId !== undefined) {
        this.io.stderr(
          this.#paint.yellow(
            'The listener was removed while disconnected; opening a new one (same secret).\n',
          ),
        );
        this.#listenerId = undefined;
        return this.#session();
      }
      if (error instanceof ServiceUnreachable && this.#connectedOnce) {
        this.io.stderr(this.#paint.yellow(`${error.message}.\n`));
        return;
      }
      if (error instanceof ServiceRefusal && error.status >= 500 && this.#connectedOnce) {
        this.io.stderr(this.#paint.yellow(`${error.describe()}\n`));
        return;
      }
      rethrowForPerson(error);
    }
    try {
      for await (const message of readSse(response.body!)) {
        if (message.event === 'ready') this.#ready(JSON.parse(message.data) as Ready);
        else if (message.event === 'delivery') void this.#deliver(JSON.parse(message.data) as Delivery);
        else if (message.event === 'end') return this.#ended(JSON.parse(message.data));
      }
      if (!this.#abort.signal.aborted)
        this.io.stderr(this.#paint.yellow('The stream from the service dropped.\n'));
    } catch (error) {
      if (this.#abort.signal.aborted || error instanceof Stop) {
        if (error instanceof Stop) throw error;
        return;
      }
      this.io.stderr(
        this.#paint.yellow(`The stream from the service dropped (${(error as Error).message}).\n`),
      );
    }
  }

  #ready(ready: Ready): void {
    const first = !this.#connectedOnce;
    this.#connectedOnce = true;
    this.#failures = 0;
    this.#listenerId = ready.listener_id;
    const { green, yellow, dim } = this.#paint;
    if (first) {
      const events = ready.events.length === 0 ? 'every event' : ready.events.join(', ');
      this.io.stdout(
        `${green('Ready.')} Forwarding ${events} to ${this.forwardTo} (listener ${ready.listener_id}).\n` +
          `Signing secret: ${ready.secret}\n` +
          dim(`Give it to your app, e.g. SVC_WEBHOOK_SECRET=${ready.secret}. Press Ctrl-C to stop.\n`),
      );
    } else {
      this.io.stdout(`${green('Reconnected')} (listener ${ready.listener_id}).\n`);
    }
    if (ready.status !== 'active') {
      this.io.stderr(
        yellow(
          `The listener is ${ready.status} (twenty failures in a row pause an endpoint): nothing is delivered until it is resumed.\n`,
        ),
      );
    }
    if (ready.webhooks_enabled === false) {
      this.io.stderr(
        yellow(
          'Webhooks are switched off for this workspace: nothing is delivered until they are switched on.\n',
        ),
      );
    }
    const skew = Date.now() - ready.server_time;
    if (Math.abs(skew) > CLOCK_SKEW_WARNING_MS) {
      this.io.stderr(
        yellow(
          `Your clock is ${Math.round(Math.abs(skew) / 1000)} s ${skew > 0 ? 'ahead of' : 'behind'} the service's: ` +
            'receivers refuse signatures more than 300 s from their own time. Sync your clock (NTP).\n',
        ),
      );
    }
  }

  #ended(end: { reason: string; message: string }): void {
    if (end.reason === 'shutting_down') {
      this.io.stderr(this.#paint.yellow(`The service closed the stream: ${end.message}.\n`));
      return;
    }
    // Removed, replaced or no longer authorized: reconnecting cannot help.
    if (end.reason === 'removed' || end.reason === 'replaced') this.#listenerId = undefined;
    throw new Stop(1, `${end.message}.`);
  }

  async #deliver(delivery: Delivery): Promise<void> {
    const outcome = await forwardToLocal(this.forwardTo, delivery.headers, delivery.body);
    this.io.stdout(`${this.#line(delivery, outcome)}\n`);
    const advice = adviceFor(outcome, this.forwardTo);
    if (advice !== undefined) this.io.stderr(`  ${this.#paint.yellow(advice)}\n`);
    await this.#report(delivery, outcome);
  }

  #line(delivery: Delivery, outcome: LocalOutcome): string {
    const { green, yellow, red, dim } = this.#paint;
    const result =
      outcome.kind === 'failed'
        ? red(`failed: ${outcome.detail}`)
        : (outcome.status < 300 ? green : outcome.status < 500 ? yellow : red)(String(outcome.status));
    return `${dim(clockTime(new Date()))}  ${delivery.event_type}  ${delivery.event_id}  -> ${result}  ${outcome.latencyMs} ms`;
  }

  async #report(delivery: Delivery, outcome: LocalOutcome): Promise<void> {
    const answer =
      outcome.kind === 'answered'
        ? { status: outcome.status, excerpt: outcome.excerpt, failure: null }
        : { status: null, excerpt: null, failure: outcome.failure };
    try {
      await callService(this.target, 'POST', `/relay/v1/listeners/${this.#listenerId}/answers`, {
        body: { delivery_id: delivery.delivery_id, latency_ms: outcome.latencyMs, ...answer },
      });
    } catch (error) {
      const why = error instanceof ServiceRefusal ? error.describe() : (error as Error).message;
      this.io.stderr(this.#paint.yellow(`  Could not report the local answer to the service: ${why}\n`));
    }
  }

  async #close(): Promise<void> {
    if (this.#listenerId === undefined) return;
    try {
      await callService(this.target, 'DELETE', `/relay/v1/listeners/${this.#listenerId}`, {
        signal: AbortSignal.timeout(3_000),
      });
      this.io.stdout('Listener closed.\n');
    } catch (error) {
      const why = error instanceof ServiceRefusal ? error.describe() : (error as Error).message;
      this.io.stderr(
        this.#paint.yellow(
          `Could not close the listener (${why}); the service removes it after 10 minutes.\n`,
        ),
      );
    }
  }
}
