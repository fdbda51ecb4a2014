import { context, isSpanContextValid, ROOT_CONTEXT, trace, type Link, type SpanContext } from '@opentelemetry/api';
import { SpanKind, withSpan } from '../../adapters/tracing.ts';
import type { WebhookAttempt } from '../../services/configuration/event-webhooks/index.ts';

/** Where a run's trace is (temporal/run-trace-context.ts): the context its workflow was started in. */
export type RunTraceContextLookup = (runId: string) => Promise<SpanContext | null>;

/** Runs whose traces one batch's span links to, at most. */
const MAX_LINKED_RUNS = 32;

/**
 * The `webhook deliver` span around one batch's POST
 * (docs/decisions/webhook-delivery-traces.md). Following the messaging conventions for a consumer of produced messages: a batch that
 * carries the events of one run is a child in that run's trace (where someone looking at the run
 * expects its delivery), linked to the delivery activity's own span; a batch that carries events of
 * several runs stays in the activity's trace and links to each run's trace. Attributes: the
 * webhook and batch ids and the event count, never the events, the URL or the signature.
 * Without a lookup (tracing off) `send` runs bare.
 */
export async function traceWebhookBatch<T>(lookup: RunTraceContextLookup | undefined, attempt: WebhookAttempt, send: () => Promise<T>): Promise<T> {
  if (!lookup) return send();
  const runIds = [...new Set(attempt.batch.events.map(runIdOf).filter((id): id is string => id !== null))].slice(0, MAX_LINKED_RUNS);
  const runContexts = (await Promise.all(runIds.map((runId) => lookup(runId)))).filter(
    (found): found is SpanContext => found !== null && isSpanContextValid(found),
  );
  const activity = trace.getActiveSpan()?.spanContext();
  const ownLink: Link[] = activity && isSpanContextValid(activity) ? [{ context: activity }] : [];
  const single = runIds.length === 1 && runContexts.length === 1;
  const parent = single ? trace.setSpanContext(ROOT_CONTEXT, runContexts[0]!) : context.active();
  const links = single ? ownLink : runContexts.map((found) => ({ context: found }));
  const attributes = {
    'agent_runtime.webhook.id': attempt.webhook.id,
    'agent_runtime.webhook.batch_id': attempt.batch.id,
    'agent_runtime.webhook.event_count': attempt.batch.events.length,
    'agent_runtime.webhook.run_count': runIds.length,
  };
  return context.with(parent, () => withSpan('webhook deliver', { kind: SpanKind.PRODUCER, attributes, links }, send));
}

function runIdOf(event: WebhookAttempt['batch']['events'][number]): string | null {
  if (event.aggregateType === 'run') return event.aggregateId;
  const runId = (event.publicPayload as { runId?: unknown } | null)?.runId;
  return typeof runId === 'string' ? runId : null;
}
