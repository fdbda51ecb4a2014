import { eq } from 'drizzle-orm';
import { agents } from '../../../db/schema/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findLiveAgent } from './lookup.ts';

/**
 * Archives an agent (irreversible): every lookup answers 404, no versions or sessions can be
 * added, the key is released (the unique index covers live agents only). Versions stay, so
 * sessions and coordinators pinning them keep working.
 */
export async function deleteAgent({ ctx, input }: { ctx: ServiceContext; input: { agentId: string } }): Promise<{ id: string; deleted: true }> {
  return withTransaction(ctx, async (tx) => {
    const { agent } = await findLiveAgent(tx, input.agentId, { forUpdate: true });
    const now = tx.clock.now();
    await tx.db.update(agents).set({ deletedAt: now, updatedAt: now }).where(eq(agents.id, agent.id));
    await recordAudit(tx, { action: 'agent.deleted', targetType: 'agent', targetId: agent.id, details: { key: agent.key } });
    return { id: agent.id, deleted: true as const };
  });
}
