import * as v from 'valibot';
import { normalizeVersionContent, SkillVersionBody } from '../../../domain/skills/content.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertPublishableContent } from './assert-content.ts';
import { insertSkillVersion } from './insert-version.ts';
import { findLiveSkill } from './load.ts';
import type { PublicSkillVersion } from './public.ts';

/**
 * Publishes the next immutable version of a live Skill from a complete version body (spec 2
 * `POST /skills/{id}/versions`). Works for disabled Skills too; a removed Skill is a 404;
 * content identical to an earlier version is a 409.
 */
export async function publishSkillVersion({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { skillId: string; body: SkillVersionBody };
}): Promise<PublicSkillVersion> {
  const actor = requireActor(ctx);
  const content = normalizeVersionContent(v.parse(SkillVersionBody, input.body));
  assertPublishableContent(content, { prefix: 'body' });
  return withTransaction(ctx, async (tx) => {
    const skill = await findLiveSkill(tx, actor, input.skillId, { lock: true });
    return insertSkillVersion(tx, actor, skill, content);
  });
}
