import { eq } from 'drizzle-orm';
import { eventWebhooks } from '../../../db/schema/index.ts';
import { retryDelayMs } from '../../../domain/webhooks/limits.ts';
import type { WebhookStepOutcome } from '../../../domain/webhooks/workflow.ts';
import type { ServiceContext } from '../../context.ts';
import { latestProjectPosition } from '../../events/read.ts';
import { withTransaction } from '../../transaction.ts';

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
 * (spec 3 rule 8). 2xx advances the cursor; 410 disables with the cursor and batch kept;
 * anything else backs off 2 s doubling to 5 min, `Retry-After` honoured within that range.
 */
export async function recordWebhookAttempt(
  ctx: ServiceContext,
  input: { webhookId: string; changeSequence: number; batchId: string; attemptedAt: Date; result: AttemptResult },
): Promise<WebhookStepOutcome> {
  return withTransaction(ctx, async (tx) => {
    const [webhook] = await tx.db.select().from(eventWebhooks).where(eq(eventWebhooks.id, input.webhookId)).for('update');
    if (!webhook || !webhook.enabled || webhook.changeSequence !== input.changeSequence || webhook.pendingBatchId !== input.batchId) {
      return { kind: 'superseded' };
    }
    const now = tx.clock.now();
    const { result } = input;
    const attempt = { lastAttemptAt: input.attemptedAt, updatedAt: now };
    switch (result.kind) {
      case 'success': {
        const throughPosition = webhook.pendingThroughPosition!;
        await tx.db
          .update(eventWebhooks)
          .set({
            ...attempt,
            deliveredPosition: throughPosition,
            pendingBatchId: null,
            pendingFromPosition: null,
            pendingThroughPosition: null,
            pendingBatchCreatedAt: null,
            status: 'active',
            consecutiveFailures: 0,
            nextAttemptAt: null,
            lastSuccessAt: now,
            lastResponseStatus: result.status,
          })
          .where(eq(eventWebhooks.id, webhook.id));
        return { kind: 'delivered', more: (await latestProjectPosition(tx.db, webhook.projectId)) > throughPosition };
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
        return { kind: 'stopped' };
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
        return { kind: 'failed', retryInMs: delay };
      }
    }
  });
}
