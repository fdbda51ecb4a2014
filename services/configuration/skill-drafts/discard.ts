import { eq } from 'drizzle-orm';
import { skillDrafts } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findDraft } from './load.ts';

/** Discards a draft and its entries (hard delete: drafts are never published or backed up). */
export async function discardSkillDraft({ ctx, input }: { ctx: ServiceContext; input: { draftId: string } }): Promise<{ id: string; deleted: true }> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const draft = await findDraft(tx, actor, input.draftId, { lock: true });
    // Entries cascade with the draft row.
    await tx.db.delete(skillDrafts).where(eq(skillDrafts.id, draft.id));
    return { id: draft.id, deleted: true as const };
  });
}
