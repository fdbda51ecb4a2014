import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import { RUN_WORKFLOW_TYPE } from '../domain/runs/workflow.ts';

/**
 * Workflow interceptors of @temporalio/interceptors-opentelemetry, bundled only when the worker
 * traces (temporal/tracing.ts; not a workflow, so not exported by index.ts). They trace the run
 * workflow: `RunWorkflow:runWorkflow`, `StartActivity:<name>` and `HandleSignal:<name>` spans in
 * the run's trace, and the context handed to each activity in its headers.
 *
 * The webhook delivery workflow is left untraced here: it lives as long as its webhook, so its
 * `RunWorkflow` span would stay open (unexported) for days and gather every delivery into one
 * trace. Each of its activity executions begins a short trace of its own instead, and each batch's
 * POST joins the trace of the run whose events it carries (activities/webhooks/deliver-batch.ts).
 *
 * Replay-safe for histories recorded without them: the package gates its yield points behind SDK
 * flags (test/integration/tracing.test.ts replays every golden history with this module bundled).
 */
export const interceptors = (): WorkflowInterceptors =>
  workflowInfo().workflowType === RUN_WORKFLOW_TYPE
    ? {
        inbound: [new OpenTelemetryInboundInterceptor()],
        outbound: [new OpenTelemetryOutboundInterceptor()],
        internals: [new OpenTelemetryInternalsInterceptor()],
      }
    : {};
