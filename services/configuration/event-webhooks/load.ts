import { and, eq } from 'drizzle-orm';
import { eventWebhooks } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { EventWebhookRow } from './public.ts';

/** A webhook of the actor's project; 404 for an unknown id or another project's webhook. */
export async function loadEventWebhook(ctx: ServiceContext, input: { projectId: string; webhookId: string; lock?: boolean }): Promise<EventWebhookRow> {
  const query = ctx.db
    .select()
    .from(eventWebhooks)
    .where(and(eq(eventWebhooks.id, input.webhookId), eq(eventWebhooks.projectId, input.projectId)));
  const [row] = input.lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('Event webhook not found');
  return row;
}
