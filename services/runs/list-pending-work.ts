import type { ServiceContext } from '../context.ts';
import { requireActor } from '../require-actor.ts';
import { emptyPendingWork, type PublicPendingWork } from '../sessions/public.ts';

/**
 * Unresolved tool and approval work of the project (`GET /pending-work`): caller-owned tool
 * calls waiting for a claim or result, and approvals waiting for a decision. Neither exists
 * before the tool slice, so the answer is the documented shape with empty lists.
 */
export async function listPendingWork({ ctx }: { ctx: ServiceContext }): Promise<PublicPendingWork> {
  requireActor(ctx);
  return emptyPendingWork();
}
