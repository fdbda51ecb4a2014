// The verbs and read models of kernel/idempotency/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { executeIdempotently } from './execute.ts';
export { claimIdempotencyKey, completeIdempotencyRecord, findIdempotencyRecord, forgetIdempotencyRecord, hashRequestBody } from './records.ts';
export type { IdempotencyScope, StoredResponse } from './records.ts';
