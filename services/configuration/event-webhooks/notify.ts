import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { EVENT_WEBHOOKS_CHANNEL } from './public.ts';

/** Wakes the worker's webhook dispatcher when the transaction commits (NOTIFY is transactional). */
export async function notifyWebhookChanged(db: Executor, webhookId: string): Promise<void> {
  await db.execute(sql`select pg_notify(${EVENT_WEBHOOKS_CHANNEL}, ${webhookId}::text)`);
}
