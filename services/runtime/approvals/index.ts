// The verbs and read models of runtime/approvals/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { ApprovalDecision, decideApproval } from './decide.ts';
export { listApprovals } from './list.ts';
