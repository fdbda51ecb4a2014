import { ConflictError } from '../../../domain/errors.ts';
import { isToolCallFinal } from '../../../domain/tool-calls/states.ts';
import type { ToolCallRow } from './public.ts';

/**
 * Renew, release and result are allowed only to the holder of the current claim: the call is
 * `claimed` by this principal, the fence is the latest one and the lease has not passed. The
 * principal is checked before the fence, so another principal learns nothing about fences from
 * the refusal (issue 28). A lapsed lease is treated as expired at once (the row turns `expired`
 * when the runtime's `expireOverdue` runs at that deadline; a 409 here rolls the request back, so
 * it cannot write that itself).
 */
export function assertLiveClaim(call: ToolCallRow, claim: { fence: string; principalId: string }, now: Date): void {
  if (isToolCallFinal(call.status)) {
    throw new ConflictError(`The tool call is already ${call.status}; its result cannot change`, { toolCallId: call.id, status: call.status });
  }
  if (call.status !== 'claimed') throw new ConflictError(`A ${call.status} tool call is not claimed`, { toolCallId: call.id, status: call.status });
  if (call.claimedByPrincipalId === null || call.claimedByPrincipalId !== claim.principalId) {
    throw new ConflictError('The tool call is claimed by another principal; only the claimer can renew, release or submit', {
      toolCallId: call.id,
      reason: 'not_claim_holder',
    });
  }
  if (String(call.fence) !== claim.fence)
    throw new ConflictError('The fence is stale: the tool call was claimed again since', { toolCallId: call.id, reason: 'stale_fence' });
  if (!call.leaseExpiresAt || call.leaseExpiresAt.getTime() <= now.getTime()) {
    throw new ConflictError('The claim lease has expired', { toolCallId: call.id, status: 'expired', reason: 'lease_expired' });
  }
}
