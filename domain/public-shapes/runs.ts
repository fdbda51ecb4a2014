import * as v from 'valibot';
import { RUN_STATES } from '../runs/states.ts';
import { Id, Timestamp } from './common.ts';

/** `failure` of a failed, cancelled or timed-out run: a stable code and a safe explanation. */
export const RunFailureShape = v.strictObject({ errorCode: v.string(), errorExplanation: v.string() });

/** The run object of spec 1, plus `failure` (null unless failed, cancelled or timed out). */
export const PublicRunShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  threadId: Id,
  sessionId: Id,
  agentVersionId: Id,
  createdByPrincipalId: v.nullable(Id),
  state: v.picklist(RUN_STATES),
  inputPublic: v.strictObject({ message: v.string() }),
  idempotencyKey: v.nullable(v.string()),
  cancellationRequestedAt: v.nullable(Timestamp),
  admittedAt: v.nullable(Timestamp),
  settledAt: v.nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  failure: v.nullable(RunFailureShape),
});
