import { eq } from 'drizzle-orm';
import { skillDrafts, skills } from '../../../db/schema/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findLiveSkill } from './load.ts';

/**
 * Removes a Skill, irreversibly (spec 1 "Skills" states): it leaves lists and every read and
 * version publication answers 404, its key is free for a new Skill, and its open drafts are
 * discarded. The row and its versions stay, because agent versions and sessions bind them.
 * Writes `skill.deleted`. Removing again is a 404.
 */
export async function deleteSkill({ ctx, input }: { ctx: ServiceContext; input: { skillId: string } }): Promise<{ id: string; key: string; deleted: true }> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const skill = await findLiveSkill(tx, actor, input.skillId, { lock: true });
    const now = tx.clock.now();
    await tx.db.update(skills).set({ deletedAt: now, updatedAt: now }).where(eq(skills.id, skill.id));
    const discarded = await tx.db.delete(skillDrafts).where(eq(skillDrafts.skillId, skill.id)).returning({ id: skillDrafts.id });
    await recordAudit(tx, { action: 'skill.deleted', targetType: 'skill', targetId: skill.id, details: { key: skill.key, discardedDrafts: discarded.length } });
    await appendProductEvent(tx, {
      organizationId: skill.organizationId,
      projectId: skill.projectId,
      aggregateType: 'skill',
      aggregateId: skill.id,
      kind: 'skill.deleted',
      publicPayload: { skillId: skill.id, key: skill.key },
    });
    return { id: skill.id, key: skill.key, deleted: true as const };
  });
}
