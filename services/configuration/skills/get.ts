import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { findLiveSkill, listVersionManifests } from './load.ts';
import { toSkillDetailResponse, type PublicSkillDetail } from './public.ts';

/** A live Skill of the project with every version's manifest, oldest first; 404 once removed. */
export async function getSkill({ ctx, input }: { ctx: ServiceContext; input: { skillId: string } }): Promise<PublicSkillDetail> {
  const actor = requireActor(ctx);
  const skill = await findLiveSkill(ctx, actor, input.skillId);
  return toSkillDetailResponse(skill, await listVersionManifests(ctx, skill.id, actor));
}
