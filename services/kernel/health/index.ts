// The verbs and read models of kernel/health/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createReadiness } from './readiness.ts';
export type { Probe, Readiness } from './readiness.ts';
