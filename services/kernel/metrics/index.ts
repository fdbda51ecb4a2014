// The verbs and read models of kernel/metrics/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { countCommittedEvents } from './event-metrics.ts';
export { countModelCall } from './model-call-metrics.ts';
export { metrics, metricsRegistry, observeDatabasePool } from './registry.ts';
export { countRunMoved, countRunQueued, observeRunMoved, settlingRunAgentId } from './run-metrics.ts';
export { observeRuntimeState } from './state-gauges.ts';
export { countWebhookDelivery } from './webhook-metrics.ts';
