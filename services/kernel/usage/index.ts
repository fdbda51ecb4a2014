// The verbs and read models of kernel/usage/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { readUsageLedger } from './ledger.ts';
export { addToUsageRollup } from './rollup.ts';
