// The verbs and read models of runtime/harness-operations/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { finishHarnessOperation } from './finish.ts';
export type { HarnessOperationEnd } from './finish.ts';
export { startHarnessOperation } from './start.ts';
