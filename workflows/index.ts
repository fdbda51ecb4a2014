/**
 * The workflow bundle's entry point: the worker (temporal/worker.ts) bundles this module and
 * registers every workflow function it exports. Only deterministic code may be reached from
 * here: `@temporalio/workflow`, `domain/`, and `import type` from `activities/`.
 *
 * The run workflow (`runWorkflow`, workflows/run.ts) and the webhook delivery workflow
 * (`webhookDeliveryWorkflow`, workflows/webhook-delivery.ts) are exported here when they land.
 */
export {};
