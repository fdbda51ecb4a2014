import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, lte } from 'drizzle-orm';
import { eventWebhooks, productEvents } from '../../../../db/schema/index.ts';
import type { PublicProductEvent } from '../../../kernel/events/index.ts';
import type { ServiceContext } from '../../../kernel/service-context.ts';
import { withTransaction } from '../../../kernel/transaction.ts';
import type { EventWebhookRow } from '../public.ts';
import { batchEvents, planWebhookBatch } from './plan-batch.ts';

export type WebhookAttempt = {
  webhook: Pick<EventWebhookRow, 'id' | 'organizationId' | 'projectId' | 'endpointUrl'>;
  /** The change sequence the attempt started under; the outcome is recorded only if still current. */
  changeSequence: number;
  /** Sealed secrets that sign this attempt: the current one, and the previous one in its grace period. */
  sealedSecrets: string[];
  batch: { id: string; fromPosition: bigint; throughPosition: bigint; createdAt: Date; events: PublicProductEvent[] };
};

export type PreparedStep =
  | { kind: 'stopped' }
  /** Nothing after `position`, the cursor. */
  | { kind: 'idle'; projectId: string; position: bigint }
  | { kind: 'advanced' }
  | { kind: 'backoff'; retryInMs: number }
  | { kind: 'attempt'; attempt: WebhookAttempt };

/**
 * The first half of a delivery step, in one transaction under the webhook's row lock: keep the
 * pending batch if there is one (a retry sends the same `webhook-id` and events), or plan the
 * next one and store it before anything is sent, so a worker that dies mid-request resends the
 * same batch. Filtered-out events advance the cursor here without a request.
 */
export async function prepareWebhookAttempt({ ctx, input }: { ctx: ServiceContext; input: { webhookId: string } }): Promise<PreparedStep> {
  return withTransaction(ctx, async (tx) => {
    const [webhook] = await tx.db.select().from(eventWebhooks).where(eq(eventWebhooks.id, input.webhookId)).for('update');
    if (!webhook || !webhook.enabled) return { kind: 'stopped' };
    const now = tx.clock.now();
    // A back-off still running (after a restart or continue-as-new) is honoured.
    if (webhook.nextAttemptAt && webhook.nextAttemptAt > now) return { kind: 'backoff', retryInMs: webhook.nextAttemptAt.getTime() - now.getTime() };

    let batch: WebhookAttempt['batch'];
    if (webhook.pendingBatchId) {
      const range = {
        id: webhook.pendingBatchId,
        fromPosition: webhook.pendingFromPosition!,
        throughPosition: webhook.pendingThroughPosition!,
        createdAt: webhook.pendingBatchCreatedAt!,
      };
      const rows = await tx.db
        .select()
        .from(productEvents)
        .where(
          and(
            eq(productEvents.projectId, webhook.projectId),
            gt(productEvents.projectPosition, range.fromPosition),
            lte(productEvents.projectPosition, range.throughPosition),
          ),
        )
        .orderBy(asc(productEvents.projectPosition));
      batch = { ...range, events: batchEvents(rows, webhook) };
    } else {
      const plan = await planWebhookBatch(tx.db, {
        projectId: webhook.projectId,
        afterPosition: webhook.deliveredPosition,
        eventKinds: webhook.eventKinds,
        includeMessageContent: webhook.includeMessageContent,
      });
      if (plan.kind === 'empty') return { kind: 'idle', projectId: webhook.projectId, position: webhook.deliveredPosition };
      if (plan.kind === 'filtered') {
        await tx.db.update(eventWebhooks).set({ deliveredPosition: plan.throughPosition }).where(eq(eventWebhooks.id, webhook.id));
        return { kind: 'advanced' };
      }
      batch = { id: randomUUID(), fromPosition: plan.fromPosition, throughPosition: plan.throughPosition, createdAt: now, events: plan.events };
      await tx.db
        .update(eventWebhooks)
        .set({
          pendingBatchId: batch.id,
          pendingFromPosition: batch.fromPosition,
          pendingThroughPosition: batch.throughPosition,
          pendingBatchCreatedAt: batch.createdAt,
        })
        .where(eq(eventWebhooks.id, webhook.id));
    }

    return { kind: 'attempt', attempt: attemptFor(webhook, batch, now) };
  });
}

/** What sending one batch needs: endpoint, ids, the change sequence it starts under, and the secrets. */
export function attemptFor(webhook: EventWebhookRow, batch: WebhookAttempt['batch'], now: Date): WebhookAttempt {
  const sealedSecrets = [webhook.credentialCiphertext, previousSecretIfLive(webhook, now)].filter((secret): secret is string => secret !== null);
  return {
    webhook: { id: webhook.id, organizationId: webhook.organizationId, projectId: webhook.projectId, endpointUrl: webhook.endpointUrl },
    changeSequence: webhook.changeSequence,
    sealedSecrets,
    batch,
  };
}

function previousSecretIfLive(webhook: EventWebhookRow, now: Date): string | null {
  if (!webhook.previousCredentialCiphertext || !webhook.previousCredentialExpiresAt) return null;
  return webhook.previousCredentialExpiresAt > now ? webhook.previousCredentialCiphertext : null;
}
