// The verbs and read models of kernel/audit/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { recordAudit } from './record-audit.ts';
