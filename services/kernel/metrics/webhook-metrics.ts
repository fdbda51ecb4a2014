import { metrics } from './registry.ts';

/** One batch POST (or a batch that could not be signed: `seconds` null), by outcome. */
export function countWebhookDelivery(outcome: string, seconds: number | null): void {
  metrics.webhookDeliveries.inc({ outcome });
  if (seconds !== null) metrics.webhookDeliveryDuration.observe(seconds);
}
