import type { Client } from '@temporalio/client';
import { RUN_SEARCH_ATTRIBUTES } from '../domain/runs/workflow.ts';
import {
  WEBHOOK_CHANGED_SIGNAL,
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  WEBHOOK_EVENTS_COMMITTED_SIGNAL,
  webhookWorkflowId,
  type WebhookWakeReason,
} from '../domain/webhooks/workflow.ts';

/**
 * Wakes `webhook:<webhookId>` with signal-with-start: a running workflow gets the signal, a
 * missing or finished one is started (re-enabled webhooks, a worker's first refresh). Operators
 * find a project's delivery workflows in the Web UI by `projectId`, like its runs.
 */
export function createTemporalWebhookWaker(options: { client: Client; taskQueue: string }) {
  const { client, taskQueue } = options;
  return async (target: { webhookId: string; projectId: string }, reason: WebhookWakeReason): Promise<void> => {
    await client.workflow.signalWithStart(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
      workflowId: webhookWorkflowId(target.webhookId),
      taskQueue,
      args: [{ webhookId: target.webhookId }],
      signal: reason === 'changed' ? WEBHOOK_CHANGED_SIGNAL : WEBHOOK_EVENTS_COMMITTED_SIGNAL,
      signalArgs: [],
      typedSearchAttributes: [{ key: RUN_SEARCH_ATTRIBUTES.projectId, value: target.projectId }],
    });
  };
}
