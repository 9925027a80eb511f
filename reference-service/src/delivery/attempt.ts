import type { Logger } from 'pino';
import { isNoAnswerReason } from '../domain/no-answer-reasons.js';
import { DEFAULT_USER_AGENT, type GuardedClient, type PostOutcome } from '../outbound/guarded-client.js';
import type { Relay } from '../relay/relay.js';
import { RELAY_FAILURES } from '../relay/types.js';
import type { Db } from '../store/db.js';
import { recordAttempt } from '../store/queries/deliveries-claim.js';
import { isListenerUrl } from '../store/queries/listeners.js';
import { type Ready, secretsAt } from './secrets.js';
import { deliveryHeaders } from './signing.js';
import type { SuccessLog } from './success-log.js';

/** The one attempt of a claimed delivery: sign, POST through the guarded client, log the outcome. */
export function createAttempt(deps: {
  db: Db;
  client: GuardedClient;
  /** Carries listener endpoints' deliveries; without it they fail as having no listener. */
  relay: Relay | undefined;
  onOutcome: ((outcome: PostOutcome) => void) | undefined;
  successes: SuccessLog;
  log: Logger;
  now: () => number;
}): (claimed: Ready) => Promise<void> {
  const { db, client, successes, log, now } = deps;
  return async function attempt(claimed) {
    const { row } = claimed;
    const at = now();
    const headers = deliveryHeaders({
      deliveryId: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      body: row.body,
      secrets: secretsAt(claimed, at),
      timestamp: Math.floor(at / 1000),
    });
    const relayed = isListenerUrl(row.url);
    const outcome: PostOutcome = !relayed
      ? await client.post(row.url, headers, row.body)
      : deps.relay === undefined
        ? { kind: 'failed', ...RELAY_FAILURES.noListener, latencyMs: 0 }
        : await deps.relay.deliver({
            endpoint_id: row.endpoint_id,
            delivery_id: row.id,
            event_id: row.event_id,
            event_type: row.event_type,
            // What the guarded client adds when it dials, so the local app sees a dialled request's headers.
            headers: { ...headers, 'user-agent': DEFAULT_USER_AGENT },
            body: row.body,
          });
    deps.onOutcome?.(outcome);
    const ok = outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;
    if (ok) {
      successes.record({
        deliveryId: row.id,
        httpStatus: outcome.status,
        latencyMs: outcome.latencyMs,
        excerpt: outcome.excerpt,
      });
      return;
    }
    // The endpoint is now in a failure run: later claims hand its rows out one at a time, or settle them
    // if it pauses.
    const answered = outcome.kind === 'answered';
    // Successes answered before this failure may still wait in the group commit. Written after it, they
    // would leave it counted in a run they broke: with many attempts in flight, an endpoint failing every
    // other one could be paused for twenty "consecutive" failures (test/delivery/failure-run-order).
    await successes.flushed();
    const paused = await recordAttempt(
      db,
      {
        deliveryId: row.id,
        ok: false,
        // The log's fields describe the endpoint's answer; without one they are null, the log keeps only
        // the reason's code (the portal reads it) and its words go to the service log below. A listener's
        // log is the exception: the relay is the service's own transport, and the person at the CLI reads
        // why nothing reached their app there.
        httpStatus: answered ? outcome.status : null,
        latencyMs: answered ? outcome.latencyMs : null,
        excerpt: answered ? outcome.excerpt : relayed ? `not delivered: ${outcome.reason}` : null,
        // A relayed outcome may come by NOTIFY from another instance: only a known code is kept.
        noAnswerReason: answered ? null : isNoAnswerReason(outcome.code) ? outcome.code : 'other',
      },
      now(),
    );
    if (!answered) {
      log.warn(
        { delivery_id: row.id, endpoint_id: row.endpoint_id, reason: outcome.reason, code: outcome.code },
        outcome.kind === 'blocked' ? 'delivery blocked' : 'delivery not answered',
      );
    }
    if (paused) log.warn({ endpoint_id: row.endpoint_id }, 'endpoint paused after consecutive failures');
  };
}
