import type { NoAnswerReason } from '../domain/no-answer-reasons.js';
import type { PostOutcome } from '../outbound/guarded-client.js';

// The relay's shapes and its NOTIFY channels (relay.ts).

/** One delivery as the listener's CLI receives it: the exact headers and body a dialled endpoint gets. */
export interface RelayedDelivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  headers: Record<string, string>;
  body: string;
}

/** Why a stream was ended by the service, and what the CLI is told as the last message. */
export const END_MESSAGES = {
  replaced: 'another listen session took over this listener',
  revoked: 'the API key no longer authorizes this listener (revoked, or its permission was removed)',
  // The key is fine: saying otherwise sent people to mint keys that could not help.
  suspended:
    'the workspace is suspended, so its listener was closed (the API key is still valid); listen again once the suspension is lifted',
  deletion_hold:
    'the workspace is on deletion hold, so its listener was closed (the API key is still valid); listen again once the hold is lifted',
  removed: 'the listener was closed',
  shutting_down: 'the service is shutting down; reconnect in a moment',
  unavailable:
    'the service could not take the stream for its listener (its database did not answer); reconnect in a moment',
} as const;

export type StreamEnd = keyof typeof END_MESSAGES;

export interface RelaySettings {
  /** How long a worker waits for another instance to say it holds the listener's stream. */
  ackTimeoutMs: number;
  /** How long a worker waits for the CLI's report of the local answer (the CLI gives up on it at 10 s). */
  answerTimeoutMs: number;
  /** PGlite: this process is the database's only user, so a stream not held here is held nowhere. */
  soleInstance: boolean;
  /** A listener no stream has held for this long is removed (its CLI was killed without closing it). */
  abandonAfterMs: number;
  /**
   * How often an open stream is checked: a heartbeat line, its credential still valid, its listener marked
   * seen. A change of its key, member or workspace is checked at once (features/listen/credential-watch.ts).
   */
  streamCheckMs: number;
  now(): number;
}

/** The service's timings for the relay; tests change only the one they are about. */
export const RELAY_TIMINGS = {
  ackTimeoutMs: 2_000,
  answerTimeoutMs: 15_000,
  abandonAfterMs: 10 * 60_000,
  streamCheckMs: 5_000,
} as const satisfies Partial<RelaySettings>;

export interface Waiting {
  /** Set once the delivery was written to a stream of this process. */
  streamId: string | undefined;
  started: number;
  timer: NodeJS.Timeout | undefined;
  settle(outcome: PostOutcome): void;
}

export const CHANNELS = {
  /** A worker asks whichever instance holds the listener's stream to relay a delivery. */
  deliver: 'svc_relay_deliver',
  /** That instance says it wrote the delivery to the stream. */
  ack: 'svc_relay_ack',
  /** The outcome of a relayed delivery, for the worker waiting for it (on whichever instance). */
  answer: 'svc_relay_answer',
  /** A stream was opened for a listener: any other stream for it, on any instance, ends. */
  hold: 'svc_relay_hold',
} as const;

/** Why a relayed delivery has no local answer: words for the logs, and the delivery log's code. */
export interface RelayFailure {
  reason: string;
  code: NoAnswerReason;
}

export const RELAY_FAILURES = {
  noListener: { reason: 'no listener was connected', code: 'listener_gone' },
  // The NOTIFY failed: the service's own fault, with the listener perhaps connected all along.
  unreachable: { reason: 'the relay could not reach the listener', code: 'other' },
  disconnected: {
    reason: 'the listener disconnected before reporting the local answer',
    code: 'listener_gone',
  },
  noReport: { reason: 'the listener did not report the local answer in time', code: 'listener_silent' },
  stopped: { reason: 'the service stopped before the listener answered', code: 'service_stopped' },
} as const satisfies Record<string, RelayFailure>;

export const failed = ({ reason, code }: RelayFailure, started: number): PostOutcome => ({
  kind: 'failed',
  reason,
  code,
  latencyMs: Math.round(performance.now() - started),
});
