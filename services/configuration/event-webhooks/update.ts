import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { eventWebhooks } from '../../../db/schema/index.ts';
import { canonicalJson } from '../../../domain/canonical-json.ts';
import { endpointOrigin } from '../../../domain/outbound/endpoint-url.ts';
import { UpdateEventWebhookInput } from '../../../domain/webhooks/inputs.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertEndpointUrl, type WebhookEndpointPolicy } from './create.ts';
import { loadEventWebhook } from './load.ts';
import { notifyWebhookChanged } from './notify.ts';
import { countPendingEvents } from './pending-events.ts';
import { toEventWebhookResponse, type EventWebhookRow, type PublicEventWebhook } from './public.ts';

/**
 * PATCH: any subset of the settings (spec 2), with spec 3 rule 8's semantics. Changing the
 * endpoint, filter or message-content setting discards a pending batch; enabling or disabling
 * keeps it. Either kind of change bumps `change_sequence`, so a request in flight is not
 * recorded and its events are sent again, and clears the back-off so delivery resumes at once.
 * Fields equal to their current value are not changes. Re-enabling sets `active` and resets the
 * failure count (the endpoint gets a fresh start; the kept cursor and pending batch still hold).
 */
export async function updateEventWebhook({
  ctx,
  policy,
  input,
}: {
  ctx: ServiceContext;
  policy: WebhookEndpointPolicy;
  input: { webhookId: string } & v.InferInput<typeof UpdateEventWebhookInput>;
}): Promise<PublicEventWebhook> {
  const actor = requireActor(ctx);
  const { webhookId, ...body } = input;
  const patch = v.parse(UpdateEventWebhookInput, body);
  if (patch.endpointUrl !== undefined) assertEndpointUrl(patch.endpointUrl, policy);
  return withTransaction(ctx, async (tx) => {
    const current = await loadEventWebhook(tx, { projectId: actor.projectId, webhookId, lock: true });
    const now = tx.clock.now();
    const changes: Partial<EventWebhookRow> = {};
    const changed: string[] = [];
    if (patch.displayName !== undefined && patch.displayName !== current.displayName) {
      changes.displayName = patch.displayName;
      changed.push('displayName');
    }
    if (patch.endpointUrl !== undefined && patch.endpointUrl !== current.endpointUrl) {
      changes.endpointUrl = patch.endpointUrl;
      changed.push('endpointUrl');
    }
    if (patch.eventKinds !== undefined && canonicalJson(patch.eventKinds) !== canonicalJson(current.eventKinds)) {
      changes.eventKinds = patch.eventKinds;
      changed.push('eventKinds');
    }
    if (patch.includeMessageContent !== undefined && patch.includeMessageContent !== current.includeMessageContent) {
      changes.includeMessageContent = patch.includeMessageContent;
      changed.push('includeMessageContent');
    }
    const discardsBatch = changed.some((field) => field !== 'displayName');
    if (discardsBatch) {
      Object.assign(changes, { pendingBatchId: null, pendingFromPosition: null, pendingThroughPosition: null, pendingBatchCreatedAt: null });
    }
    let toggled = false;
    if (patch.enabled !== undefined && patch.enabled !== current.enabled) {
      toggled = true;
      changed.push('enabled');
      Object.assign(
        changes,
        patch.enabled
          ? { enabled: true, status: 'active', disabledReason: null, consecutiveFailures: 0 }
          : { enabled: false, status: 'disabled', disabledReason: 'user' },
      );
    }
    if (changed.length === 0) {
      return toEventWebhookResponse(current, { pendingEvents: await countPendingEvents(tx.db, current), now });
    }
    if (discardsBatch || toggled) Object.assign(changes, { changeSequence: current.changeSequence + 1, nextAttemptAt: null });
    const [row] = await tx.db
      .update(eventWebhooks)
      .set({ ...changes, updatedAt: now })
      .where(eq(eventWebhooks.id, current.id))
      .returning();
    await recordAudit(tx, {
      action: 'event_webhook.updated',
      targetType: 'event_webhook',
      targetId: current.id,
      details: { endpointOrigin: endpointOrigin(row!.endpointUrl), changed },
    });
    if (discardsBatch || toggled) await notifyWebhookChanged(tx.db, current.id);
    return toEventWebhookResponse(row!, { pendingEvents: await countPendingEvents(tx.db, row!), now });
  });
}
