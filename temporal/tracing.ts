import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { Tracing } from '../config/tracing.ts';

/**
 * The Temporal side of tracing (@temporalio/interceptors-opentelemetry), wired only when the
 * process traces (config/tracing.ts); with tracing off no interceptor, sink or extra workflow
 * module exists, so the workflow bundle and every Temporal call are as without it.
 *
 * - Clients: `StartWorkflow:runWorkflow` (and signal) spans, and the active context carried in the
 *   workflow's headers, so a run's workflow joins the trace of the request that queued it.
 * - Workflow sandbox: `RunWorkflow:runWorkflow`, `StartActivity:<name>` and signal spans, through
 *   workflows/tracing-interceptors.ts, exported by the sink into this process's span processor.
 * - Activities: `RunActivity:<name>`, parented on the workflow's `StartActivity` span; the outbound
 *   calls' spans (adapters/tracing.ts) are children of it.
 */

/** The workflow interceptor module bundled into the workflow code when tracing is on. */
export const tracingWorkflowInterceptorsPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'workflows', 'tracing-interceptors.ts');

/** Interceptors for a Temporal `Client` (start, signal, signal-with-start spans and context propagation). */
export function tracingClientInterceptors(tracing: Tracing | null | undefined): ClientInterceptors | undefined {
  return tracing ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/** Worker options that trace activities and export the workflow sandbox's spans. */
export function tracingWorkerOptions(tracing: Tracing | null | undefined): { interceptors?: WorkerInterceptors; sinks?: InjectedSinks<OpenTelemetrySinks> } {
  if (!tracing) return {};
  return {
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    sinks: { exporter: workflowSpanExporter(tracing) },
  };
}

/**
 * The package's workflow span sink, given only the workflow's identity: it copies the workflow
 * info it is handed onto every span, and the whole info also holds search attributes, memo and a
 * previous attempt's failure.
 */
function workflowSpanExporter(tracing: Tracing): InjectedSinks<OpenTelemetrySinks>['exporter'] {
  const sink = makeWorkflowExporter(tracing.spanProcessor, tracing.resource as Parameters<typeof makeWorkflowExporter>[1]);
  return {
    export: {
      ...sink.export,
      fn: (info, spans) =>
        sink.export.fn(
          {
            workflowId: info.workflowId,
            runId: info.runId,
            workflowType: info.workflowType,
            taskQueue: info.taskQueue,
            namespace: info.namespace,
            attempt: info.attempt,
          } as typeof info,
          spans,
        ),
    },
  };
}
