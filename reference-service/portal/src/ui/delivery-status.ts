import { DELIVERY_STATUSES } from '@svc-kit/contract';
import type { NoAnswerReason } from '../../../src/domain/no-answer-reasons.js';

/**
 * How the portal names a delivery status. Known values get words; a value the contract adds later is shown
 * as it is (and drawn in the chart's "other" colour) until it gets its own words here.
 */
const LABELS: Record<string, string> = {
  pending: 'waiting to be sent',
  sending: 'being sent',
  delivered: 'delivered',
  failed: 'failed',
  abandoned: 'abandoned (the service stopped before an answer)',
  not_sent_paused: 'not sent (the endpoint was paused)',
  not_sent_removed: 'not sent (the endpoint was removed)',
};

export function statusLabel(status: string): string {
  return LABELS[status] ?? status;
}

/** The CSS class that colours a status (styles.css `.st-*`); unknown values share `st-other`. */
export function statusClass(status: string): string {
  return (DELIVERY_STATUSES as readonly string[]).includes(status) ? `st-${status}` : 'st-other';
}

/** Statuses in the order a chart stacks them: the contract's order, then any others by name. */
export function statusOrder(statuses: Iterable<string>): string[] {
  const known = DELIVERY_STATUSES as readonly string[];
  const others = [...new Set(statuses)].filter((s) => !known.includes(s)).sort();
  return [...known, ...others];
}

/** A run of failures as words: "1 failed delivery in a row", "3 failed deliveries in a row". */
export function failuresInARow(count: number): string {
  return `${count} failed ${count === 1 ? 'delivery' : 'deliveries'} in a row`;
}

/**
 * Why a failed attempt got no answer, in words, for each code the service keeps (the service's 10 s total
 * and 5 s connect timeouts). Every code has its sentence: the type will not compile without one.
 */
const NO_ANSWER_SENTENCES: Record<NoAnswerReason, string> = {
  timeout:
    'Timed out after 10 s waiting for an answer: the receiver took the request but sent no answer in time.',
  connect_timeout:
    'Could not connect within 5 s: the receiver’s address did not accept the connection (a host that is down, or a firewall dropping it).',
  refused:
    'The connection was refused: nothing was listening on that host and port. Is the receiver running?',
  reset: 'The receiver closed the connection without answering.',
  unreachable: 'The receiver’s address could not be reached: there was no route to its network.',
  dns: 'The receiver’s hostname did not resolve: no such name, or its DNS servers did not answer in time.',
  tls: 'The secure connection failed: the TLS handshake or the receiver’s certificate was not accepted (expired, self-signed, or for another name).',
  invalid_response: 'The receiver answered with something that is not HTTP.',
  guard_refused:
    'The service refused to dial the receiver: its URL, or an address its hostname resolves to, is not one the service may call (a private, loopback or reserved address, say).',
  listener_gone:
    'No listener was connected: the svc-webhooks listen session had stopped or lost its connection, so nothing reached your local app.',
  listener_silent: 'The listener took the delivery but never reported what your local app answered.',
  service_stopped: 'The service stopped before the listener reported an answer.',
  other:
    'The attempt failed before any answer came back, for a reason with no name here; whoever runs the service finds it in the service’s log ("delivery not answered", with this delivery’s id).',
};

/** The sentence for a code, or undefined for none (a row logged before codes were kept). */
export function noAnswerSentence(reason: NoAnswerReason | null | undefined): string | undefined {
  return reason == null ? undefined : NO_ANSWER_SENTENCES[reason];
}

/**
 * What to read into a failed attempt that got no answer and no code: rows logged before the service kept
 * why, where the portal can only name the candidates and where the service wrote the one it saw.
 */
export const NO_ANSWER =
  'No answer came back: the connection was refused or dropped, the receiver took longer than 10 seconds, ' +
  'or the service refused to dial the address. The delivery log keeps no reason; the service’s own log ' +
  'names it ("delivery not answered" or "delivery blocked", with this delivery’s id).';
