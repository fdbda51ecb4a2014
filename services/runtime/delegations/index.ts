// The verbs and read models of runtime/delegations/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { withdrawDelegationCalls } from './withdraw-calls.ts';
export { cancelDelegation } from './cancel.ts';
export { finishDelegationCall } from './finish-call.ts';
export { messageDelegation } from './message.ts';
export { delegationsOfSession, findDelegation, toPublicDelegations } from './public.ts';
export { startDelegationCall, startDelegationCalls } from './start-call.ts';
export type { DelegationStart } from './start-call.ts';
