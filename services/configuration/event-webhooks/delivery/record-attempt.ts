import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { eventWebhooks } from '../../../../db/schema/index.ts';
import { retryDelayMs } from '../../../../domain/webhooks/limits.ts';
import type { WebhookStepOutcome } from '../../../../domain/webhooks/workflow.ts';
import type { ServiceContext } from '../../../kernel/service-context.ts';
import { withTransaction } from '../../../kernel/transaction.ts';
import { planWebhookBatch } from './plan-batch.ts';
import { attemptFor, type WebhookAttempt } from './prepare-attempt.ts';

/** `lastErrorCode` values of spec 3 rule 10 (besides `endpoint_gone`). */
export type WebhookFailureCode = 'http_status' | 'timeout' | 'connection_failed' | 'destination_blocked' | 'signing_key_unavailable';

export type AttemptResult =
  | { kind: 'success'; status: number }
  | { kind: 'gone' }
  | { kind: 'failure'; errorCode: WebhookFailureCode; status: number | null; retryAfterMs: number | null };

/**
 * The second half of a delivery step: records what the endpoint answered, only if the webhook is
 * still the one the attempt started under (same change sequence and pending batch). A change
 * while the request was in flight wins: nothing is recorded and the events go out again
 * (spec 3 rule 8). 2xx advances the cursor and stores the next batch, returned as `next`; 410 disables with the cursor and batch kept;
 * anything else backs off 2 s doubling to 5 min, `Retry-After` honoured within that range.
 */
export async function recordWebhookAttempt({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { webhookId: string; changeSequence: number; batchId: string; attemptedAt: Date; result: AttemptResult };
}): Promise<{ outcome: WebhookStepOutcome; next: WebhookAttempt | null }> {
  return withTransaction(ctx, async (tx) => {
    const [webhook] = await tx.db.select().from(eventWebhooks).where(eq(eventWebhooks.id, input.webhookId)).for('update');
    if (!webhook || !webhook.enabled || webhook.changeSequence !== input.changeSequence || webhook.pendingBatchId !== input.batchId) {
      return { outcome: { kind: 'superseded' }, next: null };
    }
    const now = tx.clock.now();
    const { result } = input;
    const attempt = { lastAttemptAt: input.attemptedAt, updatedAt: now };
    switch (result.kind) {
      case 'success': {
        const throughPosition = webhook.pendingThroughPosition!;
        // The next batch is planned and stored in this same transaction (one round of statements
        // per batch instead of two); it is sent by the caller exactly like a prepared one.
        const plan = await planWebhookBatch(tx.db, {
          projectId: webhook.projectId,
          afterPosition: throughPosition,
          eventKinds: webhook.eventKinds,
          includeMessageContent: webhook.includeMessageContent,
        });
        const next =
          plan.kind === 'batch'
            ? { id: randomUUID(), fromPosition: plan.fromPosition, throughPosition: plan.throughPosition, createdAt: now, events: plan.events }
            : null;
        const [updated] = await tx.db
          .update(eventWebhooks)
          .set({
            ...attempt,
            deliveredPosition: plan.kind === 'filtered' ? plan.throughPosition : throughPosition,
            pendingBatchId: next?.id ?? null,
            pendingFromPosition: next?.fromPosition ?? null,
            pendingThroughPosition: next?.throughPosition ?? null,
            pendingBatchCreatedAt: next?.createdAt ?? null,
            status: 'active',
            consecutiveFailures: 0,
            nextAttemptAt: null,
            lastSuccessAt: now,
            lastResponseStatus: result.status,
          })
          .where(eq(eventWebhooks.id, webhook.id))
          .returning();
        return { outcome: { kind: 'delivered', more: plan.kind !== 'empty' }, next: next ? attemptFor(updated!, next, now) : null };
      }
      case 'gone':
        await tx.db
          .update(eventWebhooks)
          .set({
            ...attempt,
            enabled: false,
            status: 'disabled',
            disabledReason: 'endpoint_gone',
            consecutiveFailures: webhook.consecutiveFailures + 1,
            nextAttemptAt: null,
            lastFailureAt: now,
            lastResponseStatus: 410,
            lastErrorCode: 'endpoint_gone',
          })
          .where(eq(eventWebhooks.id, webhook.id));
        return { outcome: { kind: 'stopped' }, next: null };
      case 'failure': {
        const consecutiveFailures = webhook.consecutiveFailures + 1;
        const delay = retryDelayMs(consecutiveFailures, result.retryAfterMs);
        await tx.db
          .update(eventWebhooks)
          .set({
            ...attempt,
            status: 'failing',
            consecutiveFailures,
            nextAttemptAt: new Date(now.getTime() + delay),
            lastFailureAt: now,
            lastResponseStatus: result.status,
            lastErrorCode: result.errorCode,
          })
          .where(eq(eventWebhooks.id, webhook.id));
        return { outcome: { kind: 'failed', retryInMs: delay }, next: null };
      }
    }
  });
}
