import { and, eq, isNull } from 'drizzle-orm';
import { skills, skillVersions } from '../../../db/schema/index.ts';

import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toSkillResponse, toSkillVersionResponse, versionManifestColumns, type PublicSkill } from './public.ts';

/**
 * The project's live Skills, newest first, each with its latest version's manifest. Disabled
 * Skills are listed (non-null `disabledAt`); removed ones are not.
 */
export async function listSkills({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicSkill>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: skills.createdAt, id: skills.id }, input.cursor, 'desc');
  const rows = await ctx.db
    .select({ skill: skills, latest: versionManifestColumns })
    .from(skills)
    .leftJoin(skillVersions, and(eq(skillVersions.skillId, skills.id), eq(skillVersions.version, skills.latestVersion)))
    .where(and(eq(skills.organizationId, actor.organizationId), eq(skills.projectId, actor.projectId), isNull(skills.deletedAt), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const keyed = rows.map((row) => ({ ...row, createdAt: row.skill.createdAt, id: row.skill.id }));
  return toPage(keyed, input.limit, (row) => toSkillResponse(row.skill, row.latest?.id ? toSkillVersionResponse(row.latest) : null));
}
