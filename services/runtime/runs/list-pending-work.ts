import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { PublicPendingWork } from '../tool-calls/index.ts';
import { readPendingWork } from '../tool-calls/index.ts';

/**
 * Unresolved tool and approval work of the project (`GET /pending-work`): caller-owned tool
 * calls waiting for a claim or a result, and approvals waiting for a decision, oldest first
 * (at most `PENDING_WORK_LIMIT` of each).
 */
export async function listPendingWork({ ctx }: { ctx: ServiceContext }): Promise<PublicPendingWork> {
  const actor = requireActor(ctx);
  return readPendingWork(ctx, { projectId: actor.projectId });
}
