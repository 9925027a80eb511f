import { DELIVERY_STATUSES } from '@svc-kit/contract';

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
 * What to read into a failed attempt that got no answer. The record keeps only the endpoint's answer
 * (delivery-contract.md), so the portal cannot say which cause it was; it names the candidates and where
 * the service wrote the one it saw.
 */
export const NO_ANSWER =
  'No answer came back: the connection was refused or dropped, the receiver took longer than 10 seconds, ' +
  'or the service refused to dial the address. The delivery log keeps no reason; the service’s own log ' +
  'names it ("delivery not answered" or "delivery blocked", with this delivery’s id).';
