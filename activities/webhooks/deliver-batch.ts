import { Context } from '@temporalio/activity';
import { encodeEventCursor } from '../../domain/event-cursor.ts';
import { MAX_BATCH_EVENTS, REQUEST_TIMEOUT_MS } from '../../domain/webhooks/limits.ts';
import type { WebhookStepOutcome } from '../../domain/webhooks/workflow.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';
import type { CredentialKeyring } from '../../services/kernel/credentials/index.ts';
import { prepareWebhookAttempt, type WebhookAttempt } from '../../services/configuration/event-webhooks/index.ts';
import { recordWebhookAttempt, type AttemptResult } from '../../services/configuration/event-webhooks/index.ts';
import { webhookCredentialAad } from '../../services/configuration/event-webhooks/index.ts';
import type { ProjectEventTail } from '../../processes/project-event-tail.ts';
import { latestProjectPosition } from '../../services/kernel/events/index.ts';
import { countWebhookDelivery } from '../../services/kernel/metrics/index.ts';
import { pinnedPost, type DestinationLookup, type PostOutcome } from '../../adapters/outbound/pinned-post.ts';
import { webhookSignatureHeader } from './sign.ts';
import { traceWebhookBatch, type RunTraceContextLookup } from './trace-batch.ts';

export type { RunTraceContextLookup };

export type WebhookActivityDeps = {
  /** The context of the worker's system work (no actor). */
  system: () => ServiceContext;
  keyring: CredentialKeyring;
  /** SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK (development only). */
  allowPrivateNetwork: boolean;
  /** DNS for destinations; the system resolver unless a test gives its own. */
  lookup?: DestinationLookup;
  /** The worker's shared event tail, on which a caught-up activity lingers for new events. */
  eventTail?: ProjectEventTail;
  /**
   * A delivered batch that was not full is recorded (which plans the next from what has committed
   * by then) no sooner than this after its request began (SVC_WEBHOOK_BATCH_GATHER_MS), so events
   * committing in quick succession share a request instead of each paying a request and a
   * transaction. It adds at most this much to an event's delivery, and nothing to a trickle's
   * (its next event comes later anyway).
   */
  gatherMs: number;
  /** Where a run's trace is, so a batch's span joins it (activities/webhooks/trace-batch.ts); only when the worker traces. */
  runTraceContext?: RunTraceContextLookup;
};

export type WebhookActivities = {
  /**
   * Delivers one webhook's batches one after another (prepare or keep a batch, send it, record
   * the answer) while events are waiting, for up to about ten seconds, and returns the outcome of
   * its last step. Each step re-reads the webhook, so a change applies from the next batch on.
   */
  deliverWebhookBatches(input: { webhookId: string }): Promise<WebhookStepOutcome>;
};

/** Bounds of one activity's run of consecutive batches (a busy project's catch-up). */
const MAX_STEPS_PER_ACTIVITY = 50;

type StepResult = { outcome: WebhookStepOutcome; caughtUp: { projectId: string; position: bigint } | null; next: WebhookAttempt | null };
const MAX_ACTIVITY_MS = 10_000;
/** How long a caught-up activity waits for the next event before it hands back to the workflow. */
const LINGER_MS = 1_000;

/** Spec 3 rule 3: the `type` of every delivery body. */
const BATCH_TYPE = 'oao.events';
const HEARTBEAT_MS = 2_000;

export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities {
  const { system } = deps;

  /**
   * One step: prepare (or keep) a batch — unless the previous step's record already prepared it —
   * send it, record the answer. `caughtUp` names the position the webhook has delivered through
   * when nothing more is waiting; `next` is the batch the record step stored after a success.
   */
  const deliverOneBatch = async (webhookId: string, prepared: WebhookAttempt | null): Promise<StepResult> => {
    const ctx = system();
    const step = prepared ? { kind: 'attempt' as const, attempt: prepared } : await prepareWebhookAttempt({ ctx, input: { webhookId } });
    switch (step.kind) {
      case 'stopped':
      case 'advanced':
        return { outcome: { kind: step.kind }, caughtUp: null, next: null };
      case 'idle':
        return { outcome: { kind: 'idle' }, caughtUp: { projectId: step.projectId, position: step.position }, next: null };
      case 'backoff':
        return { outcome: { kind: 'failed', retryInMs: step.retryInMs }, caughtUp: null, next: null };
    }
    const { attempt } = step;
    const record = async (result: AttemptResult, attemptedAt: Date): Promise<StepResult> => {
      const { outcome, next } = await recordWebhookAttempt({
        ctx,
        input: { webhookId, changeSequence: attempt.changeSequence, batchId: attempt.batch.id, attemptedAt, result },
      });
      const caughtUp = outcome.kind === 'delivered' && !outcome.more ? { projectId: attempt.webhook.projectId, position: attempt.batch.throughPosition } : null;
      return { outcome, caughtUp, next };
    };

    let secrets: string[];
    try {
      secrets = attempt.sealedSecrets.map((sealed) => deps.keyring.decrypt(sealed, webhookCredentialAad(webhookId)));
      if (secrets.length === 0) throw new Error('no signing secret');
    } catch {
      ctx.logger.warn("webhook signing secret cannot be decrypted with this worker's credential key", { webhookId });
      countWebhookDelivery('signing_key_unavailable', null);
      return record({ kind: 'failure', errorCode: 'signing_key_unavailable', status: null, retryAfterMs: null }, ctx.clock.now());
    }

    const body = JSON.stringify(batchBody(attempt));
    const attemptedAt = ctx.clock.now();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    // Heartbeats let Temporal notice a dead worker in seconds; the retry resends the same batch.
    const activity = Context.current();
    const sendStarted = performance.now();
    const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
    const outcome = await traceWebhookBatch(deps.runTraceContext, attempt, () =>
      pinnedPost({
        url: attempt.webhook.endpointUrl,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'agent-runtime-webhooks/1',
          'webhook-id': attempt.batch.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignatureHeader({ secrets, webhookId: attempt.batch.id, timestamp, body }),
        },
        body,
        timeoutMs: REQUEST_TIMEOUT_MS,
        allowPrivateNetwork: deps.allowPrivateNetwork,
        ...(deps.lookup ? { lookup: deps.lookup } : {}),
      }),
    ).finally(() => clearInterval(heartbeat));
    const result = toAttemptResult(outcome);
    countWebhookDelivery(
      result.kind === 'success' ? 'delivered' : result.kind === 'gone' ? 'endpoint_gone' : result.errorCode,
      (performance.now() - sendStarted) / 1000,
    );
    // A full batch leaves more waiting: the next goes at once.
    const gather = attempt.batch.events.length < MAX_BATCH_EVENTS ? deps.gatherMs - (performance.now() - sendStarted) : 0;
    if (result.kind === 'success' && gather > 0) await new Promise((resolve) => setTimeout(resolve, gather));
    if (result.kind !== 'success') {
      ctx.logger.info('webhook delivery failed', {
        webhookId,
        batchId: attempt.batch.id,
        errorCode: result.kind === 'gone' ? 'endpoint_gone' : result.errorCode,
        status: outcome.kind === 'response' ? outcome.status : null,
      });
    }
    return record(result, attemptedAt);
  };

  /**
   * Whether an event commits after `position` within the linger time. A commit hint is enough
   * (the next step reads the events), so it watches the tail rather than subscribing to its rows.
   */
  const eventsCommitSoon = async (after: { projectId: string; position: bigint }, cancelled: AbortSignal): Promise<boolean> => {
    const tail = deps.eventTail;
    if (!tail) return false;
    let settle!: (committed: boolean) => void;
    const answer = new Promise<boolean>((resolve) => (settle = resolve));
    const watch = tail.watch(after.projectId, () => settle(true));
    const timer = setTimeout(() => settle(false), LINGER_MS);
    const onCancel = () => settle(false);
    cancelled.addEventListener('abort', onCancel, { once: true });
    try {
      // A commit between the step that caught up and the watch has no hint of its own to come.
      const latest = await latestProjectPosition({ db: system().db, input: { projectId: after.projectId } });
      if (latest > after.position) return true;
      return await answer;
    } finally {
      clearTimeout(timer);
      cancelled.removeEventListener('abort', onCancel);
      watch.close();
    }
  };

  return {
    async deliverWebhookBatches({ webhookId }) {
      const activity = Context.current();
      const began = Date.now();
      let prepared: WebhookAttempt | null = null;
      for (let step = 1; ; step++) {
        const { outcome, caughtUp, next } = await deliverOneBatch(webhookId, prepared);
        prepared = next;
        if (step >= MAX_STEPS_PER_ACTIVITY || Date.now() - began > MAX_ACTIVITY_MS || activity.cancellationSignal.aborted) return outcome;
        const more = (outcome.kind === 'delivered' && outcome.more) || outcome.kind === 'advanced';
        // Caught up: linger a moment on the shared event tail, so a steady stream of events is
        // delivered as it commits instead of after a wake-up signal and a new activity each time.
        if (!more && !(caughtUp && (await eventsCommitSoon(caughtUp, activity.cancellationSignal)))) return outcome;
        activity.heartbeat();
      }
    },
  };
}

/** The request body of spec 3 rule 3; identical on every retry of the batch. */
function batchBody(attempt: WebhookAttempt) {
  const { webhook, batch } = attempt;
  return {
    type: BATCH_TYPE,
    timestamp: batch.createdAt.toISOString(),
    data: {
      webhookId: webhook.id,
      organizationId: webhook.organizationId,
      projectId: webhook.projectId,
      batchId: batch.id,
      fromPosition: batch.fromPosition.toString(),
      throughPosition: batch.throughPosition.toString(),
      cursor: encodeEventCursor(webhook.projectId, batch.throughPosition),
      events: batch.events,
    },
  };
}

function toAttemptResult(outcome: PostOutcome): AttemptResult {
  switch (outcome.kind) {
    case 'response':
      if (outcome.status >= 200 && outcome.status < 300) return { kind: 'success', status: outcome.status };
      if (outcome.status === 410) return { kind: 'gone' };
      return { kind: 'failure', errorCode: 'http_status', status: outcome.status, retryAfterMs: outcome.retryAfterMs };
    case 'timeout':
      return { kind: 'failure', errorCode: 'timeout', status: null, retryAfterMs: null };
    case 'connection_failed':
      return { kind: 'failure', errorCode: 'connection_failed', status: null, retryAfterMs: null };
    case 'destination_blocked':
      return { kind: 'failure', errorCode: 'destination_blocked', status: null, retryAfterMs: null };
  }
}
