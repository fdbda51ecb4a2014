import * as v from 'valibot';
import { normalizeVersionContent } from '../../../domain/skills/content.ts';
import { CreateSkillInput } from '../../../domain/skills/skill.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertPublishableContent } from './assert-content.ts';
import { insertSkill } from './insert-skill.ts';
import { insertSkillVersion } from './insert-version.ts';
import { findLiveSkill } from './load.ts';
import { toSkillDetailResponse, type PublicSkillDetail } from './public.ts';

/**
 * Creates a Skill and its version 1 atomically (spec 2 `POST /skills`). The key must be unused
 * by the project's live Skills (409); a removed Skill's key is free again.
 */
export async function createSkill({ ctx, input }: { ctx: ServiceContext; input: CreateSkillInput }): Promise<PublicSkillDetail> {
  const actor = requireActor(ctx);
  const { key, displayName, ...body } = v.parse(CreateSkillInput, input);
  const content = normalizeVersionContent(body);
  assertPublishableContent(content, { prefix: 'body' });
  return withTransaction(ctx, async (tx) => {
    const skill = await insertSkill(tx, { organizationId: actor.organizationId, projectId: actor.projectId, key, displayName });
    await recordAudit(tx, { action: 'skill.created', targetType: 'skill', targetId: skill.id, details: { key } });
    const version = await insertSkillVersion(tx, actor, skill, content);
    return toSkillDetailResponse(await findLiveSkill(tx, actor, skill.id), [version]);
  });
}
