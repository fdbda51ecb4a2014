// The verbs and read models of runtime/model-invocations/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { completeModelInvocation, failModelInvocation, startModelInvocation } from './record-invocation.ts';
export type { InvocationUsage } from './record-invocation.ts';
export { checkRunBudget, reserveModelTurn, turnBudgetColumns } from './reserve-turn.ts';
export type { SpentBudget, TurnBudgetRead } from './reserve-turn.ts';
export { resolveRunModel } from './resolve-model.ts';
export type { ProjectPreset, RunModel } from './resolve-model.ts';
