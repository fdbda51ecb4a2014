import { trace, type SpanContext } from '@opentelemetry/api';
import type { Client } from '@temporalio/client';
import { extractContextFromHeaders } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import { runWorkflowId } from '../domain/runs/workflow.ts';

/** How many runs' trace contexts a worker remembers (a batch rarely names more than a few runs). */
const CACHE_SIZE = 2_000;

/**
 * Where a run's trace is, for spans that happen outside it but belong to it (a webhook batch
 * carrying its events): the trace context the run's workflow was started with, as the tracing
 * client interceptor stored it in the start event's header. One `GetWorkflowExecutionHistory`
 * page of one event per run, remembered; null when the run has no workflow or was started
 * untraced. Wired only when the worker traces (scripts/runtime.ts).
 */
export function createRunTraceContexts(options: { client: Client }): (runId: string) => Promise<SpanContext | null> {
  const { client } = options;
  const known = new Map<string, SpanContext | null>();
  return async (runId) => {
    if (known.has(runId)) return known.get(runId)!;
    let found: SpanContext | null = null;
    try {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId: runWorkflowId(runId) },
        maximumPageSize: 1,
      });
      const headers = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.header?.fields;
      const extracted = headers ? extractContextFromHeaders(headers as Parameters<typeof extractContextFromHeaders>[0]) : undefined;
      found = (extracted && trace.getSpanContext(extracted)) ?? null;
    } catch {
      // No workflow (yet), or Temporal unreachable: the span stays in its own trace.
      return null;
    }
    if (known.size >= CACHE_SIZE) known.delete(known.keys().next().value!);
    known.set(runId, found);
    return found;
  };
}
