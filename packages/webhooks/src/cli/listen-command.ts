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
import { endpointsAtSameUrl } from './twin-endpoints';
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
/** The service sends a heartbeat every 5 s: this long without a byte means the connection is dead. */
export const SILENCE_MS = 20_000;

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

function isReady(value: unknown): value is Ready {
  const ready = value as Partial<Ready> | null;
  return (
    typeof ready === 'object' &&
    ready !== null &&
    isText(ready.listener_id) &&
    isText(ready.stream_token) &&
    isText(ready.secret) &&
    Array.isArray(ready.events) &&
    isText(ready.status) &&
    typeof ready.server_time === 'number'
  );
}

function isDelivery(value: unknown): value is Delivery {
  const delivery = value as Partial<Delivery> | null;
  return (
    typeof delivery === 'object' &&
    delivery !== null &&
    isText(delivery.delivery_id) &&
    isText(delivery.event_id) &&
    isText(delivery.event_type) &&
    typeof delivery.headers === 'object' &&
    delivery.headers !== null &&
    typeof delivery.body === 'string'
  );
}

/** Text from the service, shown on a terminal: control characters (escape sequences) are dropped. */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

interface Ready {
  listener_id: string;
  stream_token: string;
  secret: string;
  events: string[];
  status: string;
  resumed: boolean;
  server_time: number;
  webhooks_enabled?: boolean;
  /** During a rotation's overlap: until when the previous secret still signs (second). */
  previous_secret_until?: number | null;
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
  #streamToken: string | undefined;
  /** The signing secret the last `ready` gave: a rotation meanwhile is said on reconnecting. */
  #secret: string | undefined;
  #connectedOnce = false;
  #failures = 0;
  /** Deliveries being forwarded or reported: Ctrl-C lets them finish before closing the listener. */
  readonly #inFlight = new Set<Promise<void>>();

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
    // One connection's own abort: Ctrl-C, or the watchdog when the service falls silent.
    const connection = new AbortController();
    const stopOnInterrupt = () => connection.abort();
    this.#abort.signal.addEventListener('abort', stopOnInterrupt);
    let silent = false;
    let watchdog: NodeJS.Timeout | undefined;
    const heardFrom = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        silent = true;
        connection.abort();
      }, SILENCE_MS);
    };
    try {
      heardFrom();
      await this.#connection(query, connection.signal, heardFrom);
    } catch (error) {
      if (silent && !(error instanceof Stop)) {
        this.io.stderr(
          this.#paint.yellow(
            `The service sent nothing for ${SILENCE_MS / 1000} s: the connection is dead.\n`,
          ),
        );
        return;
      }
      throw error;
    } finally {
      clearTimeout(watchdog);
      this.#abort.signal.removeEventListener('abort', stopOnInterrupt);
    }
  }

  async #connection(query: URLSearchParams, signal: AbortSignal, heardFrom: () => void): Promise<void> {
    let response: Response;
    try {
      response = await callService(this.target, 'GET', `/relay/v1/listen?${query}`, { stream: true, signal });
    } catch (error) {
      if (signal.aborted) {
        if (this.#abort.signal.aborted) return;
        throw error;
      }
      if (error instanceof ServiceRefusal && error.status === 404 && this.#listenerId !== undefined) {
        this.io.stderr(
          this.#paint.yellow(
            'The listener was removed while disconnected; opening a new one (same secret).\n',
          ),
        );
        this.#listenerId = undefined;
        query.delete('listener');
        return this.#connection(query, signal, heardFrom);
      }
      if (error instanceof ServiceRefusal && error.status === 404 && error.message === 'no such route') {
        throw new Stop(
          1,
          `${error.describe()} This service does not serve the relay: it is off with NODE_ENV=production unless SVC_RELAY=on, and with SVC_RELAY=off.`,
        );
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
      for await (const message of readSse(response.body!, heardFrom)) {
        const data = parseJson(message.data);
        if (message.event === 'ready') {
          if (!isReady(data)) throw new Error('the service sent an unreadable ready message');
          this.#ready(data);
        } else if (message.event === 'delivery') {
          if (isDelivery(data)) this.#track(this.#deliver(data));
          else this.io.stderr(this.#paint.yellow('The service sent an unreadable delivery; skipped.\n'));
        } else if (message.event === 'end') {
          return this.#ended(data as { reason?: unknown; message?: unknown });
        }
      }
      if (!signal.aborted) this.io.stderr(this.#paint.yellow('The stream from the service dropped.\n'));
    } catch (error) {
      if (error instanceof Stop) throw error;
      if (signal.aborted) {
        if (this.#abort.signal.aborted) return;
        throw error;
      }
      this.io.stderr(
        this.#paint.yellow(`The stream from the service dropped (${printable((error as Error).message)}).\n`),
      );
    }
  }

  /** The secret was rotated while the stream was down (the portal's "Rotate secret" on a listener). */
  #sayRotated(ready: Ready): void {
    const until = ready.previous_secret_until;
    this.io.stdout(
      `${this.#paint.yellow('The signing secret was rotated.')} Signing secret: ${ready.secret}\n` +
        this.#paint.dim(
          typeof until === 'number'
            ? `Give it to your app: the previous one also signs until ${new Date(until).toISOString()}, then no longer.\n`
            : 'Give it to your app: the previous one no longer signs.\n',
        ),
    );
  }

  #track(delivery: Promise<void>): void {
    this.#inFlight.add(delivery);
    void delivery.finally(() => this.#inFlight.delete(delivery));
  }

  #ready(ready: Ready): void {
    const first = !this.#connectedOnce;
    this.#connectedOnce = true;
    this.#failures = 0;
    this.#listenerId = ready.listener_id;
    this.#streamToken = ready.stream_token;
    const { green, yellow, dim } = this.#paint;
    if (first) {
      const events = ready.events.length === 0 ? 'every event' : ready.events.join(', ');
      this.io.stdout(
        `${green('Ready.')} Forwarding ${events} to ${this.forwardTo} (listener ${ready.listener_id}).\n` +
          `Signing secret: ${ready.secret}\n` +
          dim(`Give it to your app, e.g. SVC_WEBHOOK_SECRET=${ready.secret}. Press Ctrl-C to stop.\n`),
      );
      // Not tracked: Ctrl-C waits for deliveries, not for this advice (which never throws).
      void this.#warnOfTwins(ready.listener_id);
    } else {
      this.io.stdout(`${green('Reconnected')} (listener ${ready.listener_id}).\n`);
      if (ready.secret !== this.#secret) this.#sayRotated(ready);
    }
    this.#secret = ready.secret;
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

  /** Says when an endpoint the service dials delivers to the same app with another secret. */
  async #warnOfTwins(listenerId: string): Promise<void> {
    const twins = await endpointsAtSameUrl(this.target, this.forwardTo, listenerId);
    if (twins.length === 0) return;
    this.io.stderr(
      this.#paint.yellow(
        `Endpoint ${twins.join(', ')} of this workspace also delivers to ${this.forwardTo}, signed with ` +
          'its own secret: your app will refuse one of each pair of deliveries (a 401 there or here). ' +
          'Pause or delete it in the portal while you listen.\n',
      ),
    );
  }

  #ended(end: { reason?: unknown; message?: unknown }): void {
    const message = printable(String(end.message ?? 'the service ended the stream'));
    // The service is going away, or could not take the stream: a moment later it (or another) can.
    if (end.reason === 'shutting_down' || end.reason === 'unavailable') {
      this.io.stderr(this.#paint.yellow(`The service closed the stream: ${message}.\n`));
      return;
    }
    // Removed, replaced or no longer authorized: reconnecting cannot help, and the listener is not ours.
    this.#listenerId = undefined;
    throw new Stop(1, `${message}.`);
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
    const type = printable(delivery.event_type);
    const id = printable(delivery.event_id);
    return `${dim(clockTime(new Date()))}  ${type}  ${id}  -> ${result}  ${outcome.latencyMs} ms`;
  }

  async #report(delivery: Delivery, outcome: LocalOutcome): Promise<void> {
    const answer =
      outcome.kind === 'answered'
        ? { status: outcome.status, excerpt: outcome.excerpt, failure: null }
        : { status: null, excerpt: null, failure: outcome.failure };
    try {
      await callService(this.target, 'POST', `/relay/v1/listeners/${this.#listenerId}/answers`, {
        body: {
          stream_token: this.#streamToken,
          delivery_id: delivery.delivery_id,
          latency_ms: outcome.latencyMs,
          ...answer,
        },
      });
    } catch (error) {
      const why = error instanceof ServiceRefusal ? error.describe() : (error as Error).message;
      this.io.stderr(this.#paint.yellow(`  Could not report the local answer to the service: ${why}\n`));
    }
  }

  async #close(): Promise<void> {
    if (this.#inFlight.size > 0) {
      this.io.stderr(`Waiting for ${this.#inFlight.size} delivery(ies) in flight (at most 10 s)...\n`);
      await Promise.allSettled([...this.#inFlight]);
    }
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
