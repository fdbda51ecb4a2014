import * as v from 'valibot';
import { RUN_STATES } from '../runs/states.ts';
import { Id, Timestamp } from './common.ts';

/** A delegation relation as the API shows it (spec 1 session detail `delegations`): never messages. */
export const PublicDelegationShape = v.strictObject({
  id: Id,
  coordinatorSessionId: Id,
  delegateKey: v.string(),
  childAgentVersionId: Id,
  childSessionId: Id,
  childThreadId: Id,
  /** The session whose sandbox workspace the relation shares (the root of the delegation chain). */
  workspaceSessionId: Id,
  state: v.picklist(['open', 'closed']),
  latestChildRunId: v.nullable(Id),
  latestChildRunState: v.nullable(v.picklist(RUN_STATES)),
  createdAt: Timestamp,
  closedAt: v.nullable(Timestamp),
  /**
   * Each child run of the relation, oldest first: the coordinator run and tool call that asked for
   * it (null for a message through the API), its state, and when it was queued, began and settled
   * (the parallel children of one turn side by side).
   */
  childRuns: v.array(
    v.strictObject({
      childRunId: Id,
      coordinatorRunId: v.nullable(Id),
      toolCallId: v.nullable(Id),
      state: v.picklist(RUN_STATES),
      queuedAt: Timestamp,
      startedAt: v.nullable(Timestamp),
      settledAt: v.nullable(Timestamp),
    }),
  ),
});
export const DelegationListShape = v.strictObject({ data: v.array(PublicDelegationShape) });
/** A message to a child session queued its next run. */
export const DelegationMessageAcceptedShape = v.strictObject({ delegationId: Id, childSessionId: Id, childRunId: Id, status: v.literal('queued') });
