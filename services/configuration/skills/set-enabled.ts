import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { skills } from '../../../db/schema/index.ts';
import { SetSkillEnabledInput } from '../../../domain/skills/skill.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findLiveSkill } from './load.ts';
import { toSkillEnablementResponse } from './public.ts';

/**
 * Disables or enables a Skill (spec 1 "Skills" states). A disabled Skill stays listed and its
 * published versions keep running, but it cannot be attached to new agent versions. The
 * `skill.disabled` / `skill.enabled` product event is written with the change, and only when
 * the state changed: repeating the current state answers the same shape with no event.
 */
export async function setSkillEnabled({ ctx, input }: { ctx: ServiceContext; input: { skillId: string } & SetSkillEnabledInput }) {
  const actor = requireActor(ctx);
  const { enabled } = v.parse(SetSkillEnabledInput, { enabled: input.enabled });
  return withTransaction(ctx, async (tx) => {
    const skill = await findLiveSkill(tx, actor, input.skillId, { lock: true });
    if (skill.enabled === enabled) return toSkillEnablementResponse(skill);
    const now = tx.clock.now();
    const [updated] = await tx.db
      .update(skills)
      .set({ enabled, disabledAt: enabled ? null : now, updatedAt: now })
      .where(eq(skills.id, skill.id))
      .returning();
    const kind = enabled ? 'skill.enabled' : 'skill.disabled';
    const response = toSkillEnablementResponse(updated!);
    await recordAudit(tx, { action: kind, targetType: 'skill', targetId: skill.id, details: { key: skill.key } });
    await appendProductEvent(tx, {
      organizationId: skill.organizationId,
      projectId: skill.projectId,
      aggregateType: 'skill',
      aggregateId: skill.id,
      kind,
      publicPayload: { skillId: skill.id, key: skill.key, enabled, disabledAt: response.disabledAt },
    });
    return response;
  });
}
