import type { Client } from '@svc-kit/client';

/** Why is my receiver not getting events? Each endpoint, its state and its latest attempts. */
export async function deliveryReport(client: Client): Promise<string[]> {
  const { endpoints, enabled } = await client.webhooks.list();
  const lines: string[] = [];
  if (!enabled) lines.push('webhooks are switched off for this workspace: nothing is delivered');
  for (const endpoint of endpoints) {
    lines.push(`${endpoint.url}: ${endpoint.status}, ${endpoint.consecutive_failures} failures in a row`);
    const { deliveries } = await client.webhooks.listDeliveries(endpoint.id, { limit: 5 });
    for (const delivery of deliveries) {
      const answer = delivery.http_status ?? 'no answer';
      lines.push(`  ${delivery.event_type} ${delivery.event_id}: ${delivery.status} (${answer})`);
    }
  }
  return lines;
}
