import { ConflictError } from '../../domain/errors.ts';
import { isToolCallFinal } from '../../domain/tool-calls/states.ts';
import type { ToolCallRow } from './public.ts';

/**
 * Renew, release and result are allowed only to the holder of the current claim: the call is
 * `claimed`, the fence is the latest one and the lease has not passed. A lapsed lease is treated
 * as expired at once (the row turns `expired` when the runtime's `expireOverdue` runs at that
 * deadline; a 409 here rolls the request back, so it cannot write that itself).
 */
export function assertLiveClaim(call: ToolCallRow, fence: string, now: Date): void {
  if (isToolCallFinal(call.status)) {
    throw new ConflictError(`The tool call is already ${call.status}; its result cannot change`, { toolCallId: call.id, status: call.status });
  }
  if (call.status !== 'claimed') throw new ConflictError(`A ${call.status} tool call is not claimed`, { toolCallId: call.id, status: call.status });
  if (String(call.fence) !== fence) throw new ConflictError('The fence is stale: the tool call was claimed again since', { toolCallId: call.id, reason: 'stale_fence' });
  if (!call.leaseExpiresAt || call.leaseExpiresAt.getTime() <= now.getTime()) {
    throw new ConflictError('The claim lease has expired', { toolCallId: call.id, status: 'expired', reason: 'lease_expired' });
  }
}
