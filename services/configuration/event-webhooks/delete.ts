import { eq } from 'drizzle-orm';
import { eventWebhooks } from '../../../db/schema/index.ts';
import { endpointOrigin } from '../../../domain/outbound/endpoint-url.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { loadEventWebhook } from './load.ts';
import { notifyWebhookChanged } from './notify.ts';

/**
 * Deletes a webhook with its sealed secrets and delivery state. Its delivery workflow sees the
 * row gone at its next step and ends; a request in flight is not recorded. Deleting again is 404.
 */
export async function deleteEventWebhook({ ctx, input }: { ctx: ServiceContext; input: { webhookId: string } }): Promise<{ id: string; deleted: true }> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const current = await loadEventWebhook(tx, { projectId: actor.projectId, webhookId: input.webhookId, lock: true });
    await tx.db.delete(eventWebhooks).where(eq(eventWebhooks.id, current.id));
    await recordAudit(tx, {
      action: 'event_webhook.deleted',
      targetType: 'event_webhook',
      targetId: current.id,
      details: { endpointOrigin: endpointOrigin(current.endpointUrl) },
    });
    await notifyWebhookChanged(tx.db, current.id);
    return { id: current.id, deleted: true as const };
  });
}
