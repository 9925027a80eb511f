import type { PostOutcome } from '../outbound/guarded-client.js';
import type { ServiceMetrics } from './metrics.js';

/**
 * Counts and times each delivery attempt's outcome, dialled or handed to a `listen` stream by the relay:
 * delivered (a 2xx answer), blocked (refused by the outbound guard) or failed (anything else).
 */
export function deliveryOutcomes(metrics: ServiceMetrics): (outcome: PostOutcome) => void {
  return (outcome) => {
    const delivered = outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;
    const label = delivered ? 'delivered' : outcome.kind === 'blocked' ? 'blocked' : 'failed';
    metrics.deliveries.inc({ outcome: label });
    metrics.deliverySeconds.observe({ outcome: label }, outcome.latencyMs / 1000);
  };
}
