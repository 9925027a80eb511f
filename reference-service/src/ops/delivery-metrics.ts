import type { GuardedClient } from '../outbound/guarded-client.js';
import type { ServiceMetrics } from './metrics.js';

/** The same outbound client, with each delivery attempt's outcome and time counted. */
export function measuredClient(client: GuardedClient, metrics: ServiceMetrics): GuardedClient {
  return {
    async post(url, headers, body) {
      const outcome = await client.post(url, headers, body);
      const label =
        outcome.kind === 'answered'
          ? outcome.status >= 200 && outcome.status < 300
            ? 'delivered'
            : 'failed'
          : outcome.kind === 'blocked'
            ? 'blocked'
            : 'failed';
      metrics.deliveries.inc({ outcome: label });
      metrics.deliverySeconds.observe({ outcome: label }, outcome.latencyMs / 1000);
      return outcome;
    },
    close: () => client.close(),
  };
}
