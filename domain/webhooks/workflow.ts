/** Names shared by the webhook delivery workflow and those who start and signal it. */

export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';
export const webhookWorkflowId = (webhookId: string) => `webhook:${webhookId}`;
/** The webhook's settings changed (or it was created, enabled, disabled or deleted). */
export const WEBHOOK_CHANGED_SIGNAL = 'webhookChanged';
/** New events were committed in the webhook's project: a hint, the workflow re-reads Postgres. */
export const WEBHOOK_EVENTS_COMMITTED_SIGNAL = 'eventsCommitted';

export type WebhookWakeReason = 'changed' | 'events';

/** What one delivery step did; the workflow decides from it whether and how long to wait. */
export type WebhookStepOutcome =
  /** A batch was answered 2xx and the cursor advanced; `more` when events are already waiting. */
  | { kind: 'delivered'; more: boolean }
  /** Only filtered-out events: the cursor advanced without a request. */
  | { kind: 'advanced' }
  /** Nothing committed after the cursor. */
  | { kind: 'idle' }
  /** The attempt failed (or an earlier failure's back-off is still running). */
  | { kind: 'failed'; retryInMs: number }
  /** The webhook changed while the request was in flight: nothing was recorded. */
  | { kind: 'superseded' }
  /** Disabled (by a user or by a 410) or deleted: the workflow ends. */
  | { kind: 'stopped' };
