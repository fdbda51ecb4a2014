import { and, eq, isNull } from 'drizzle-orm';
import { skills, skillVersions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { toSkillVersionResponse, versionManifestColumns, type PublicSkillVersion } from './public.ts';

export type SkillRow = typeof skills.$inferSelect;

/**
 * A live (not removed) Skill of the actor's project, or 404: another project's Skill and a
 * removed one are answered alike. `lock` takes the row lock for the rest of the transaction,
 * serializing writers of one Skill (version numbers, enablement, removal).
 */
export async function findLiveSkill(ctx: ServiceContext, actor: Actor, skillId: string, options: { lock?: boolean } = {}): Promise<SkillRow> {
  const query = ctx.db
    .select()
    .from(skills)
    .where(and(eq(skills.id, skillId), eq(skills.organizationId, actor.organizationId), eq(skills.projectId, actor.projectId), isNull(skills.deletedAt)));
  const [row] = options.lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('No Skill with that id in this project');
  return row;
}

/** Version manifests of one Skill, oldest first. */
export async function listVersionManifests(ctx: ServiceContext, skillId: string, actor: Actor): Promise<PublicSkillVersion[]> {
  const rows = await ctx.db
    .select(versionManifestColumns)
    .from(skillVersions)
    .where(and(eq(skillVersions.skillId, skillId), eq(skillVersions.organizationId, actor.organizationId), eq(skillVersions.projectId, actor.projectId)))
    .orderBy(skillVersions.version);
  return rows.map(toSkillVersionResponse);
}

/** One version manifest of a Skill, or 404. */
export async function findVersionManifest(ctx: ServiceContext, actor: Actor, skillId: string, versionId: string): Promise<PublicSkillVersion> {
  const [row] = await ctx.db
    .select(versionManifestColumns)
    .from(skillVersions)
    .where(
      and(
        eq(skillVersions.id, versionId),
        eq(skillVersions.skillId, skillId),
        eq(skillVersions.organizationId, actor.organizationId),
        eq(skillVersions.projectId, actor.projectId),
      ),
    );
  if (!row) throw new NotFoundError('No version with that id for this Skill');
  return toSkillVersionResponse(row);
}
