// The verbs and read models of runtime/compaction/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { beginCompaction, finishCompaction } from './compact.ts';
export type { CompactionPlanStep, CompactionReason, CompactionResult, CompactionStep, SummaryPlan } from './compact.ts';
export { finishSummaryCall, startSummaryCall } from './summary-calls.ts';
export { readThreadContext, runCompactionSteps } from './thread-context.ts';
export type { ThreadContext, ThreadSummary } from './thread-context.ts';
