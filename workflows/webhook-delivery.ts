import { condition, continueAsNew, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks/deliver-batch.ts';
import { REQUEST_TIMEOUT_MS } from '../domain/webhooks/limits.ts';
import { WEBHOOK_CHANGED_SIGNAL, WEBHOOK_EVENTS_COMMITTED_SIGNAL } from '../domain/webhooks/workflow.ts';

export const webhookChanged = defineSignal(WEBHOOK_CHANGED_SIGNAL);
export const eventsCommitted = defineSignal(WEBHOOK_EVENTS_COMMITTED_SIGNAL);

// One step = at most one request (15 s) plus two short transactions. Failures of the endpoint
// are results, not errors; only our own infrastructure (database down) makes the activity retry.
const delivery = proxyActivities<WebhookActivities>({
  startToCloseTimeout: REQUEST_TIMEOUT_MS + 30_000,
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** How long an idle webhook waits for a wake-up hint before it looks at the log anyway. */
export const IDLE_RECHECK_MS = 60_000;
/** History length past which the workflow continues as new between steps. */
export const DEFAULT_WEBHOOK_HISTORY_LIMIT = 5_000;

export type WebhookDeliveryInput = { webhookId: string; historyEventLimit?: number };

/**
 * One workflow per webhook (`webhook:<webhookId>`), one batch in flight (spec 3 "Webhook
 * delivery"). Postgres holds the cursor, the pending batch and the back-off, so the workflow
 * keeps nothing but counters of the hints it received: it asks the activity for one step, then
 * waits as the outcome says — not at all while events remain, until the back-off ends (or the
 * webhook changes) after a failure, until new events are committed when idle. It ends when the
 * webhook is disabled or deleted; the worker's dispatcher starts it again when it is re-enabled.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<void> {
  const historyLimit = input.historyEventLimit ?? DEFAULT_WEBHOOK_HISTORY_LIMIT;
  let changes = 0;
  let hints = 0;
  setHandler(webhookChanged, () => void (changes += 1));
  setHandler(eventsCommitted, () => void (hints += 1));

  for (;;) {
    const info = workflowInfo();
    if (info.historyLength > historyLimit || info.continueAsNewSuggested) {
      await continueAsNew<typeof webhookDeliveryWorkflow>(input);
    }
    const changesBefore = changes;
    const hintsBefore = hints;
    const outcome = await delivery.deliverWebhookBatches({ webhookId: input.webhookId });
    switch (outcome.kind) {
      case 'stopped':
        // A change that arrived during the step (say, re-enabled at once) is looked at first.
        if (changes === changesBefore) return;
        break;
      case 'delivered':
        // Nothing more was committed when the cursor moved: wait as if idle.
        if (!outcome.more) await condition(() => hints !== hintsBefore || changes !== changesBefore, IDLE_RECHECK_MS);
        break;
      case 'advanced':
      case 'superseded':
        break;
      case 'idle':
        await condition(() => hints !== hintsBefore || changes !== changesBefore, IDLE_RECHECK_MS);
        break;
      case 'failed':
        await condition(() => changes !== changesBefore, outcome.retryInMs);
        break;
    }
  }
}
