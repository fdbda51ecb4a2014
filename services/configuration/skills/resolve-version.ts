import { and, desc, eq, ne } from 'drizzle-orm';
import { skillVersions } from '../../../db/schema/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/** A Skill version of the actor's project: the one named, else the Skill's newest that is not revoked; undefined when there is none. */
export async function resolveSkillVersionId({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { skillId: string; versionId?: string | null | undefined };
}): Promise<string | undefined> {
  const [row] = await ctx.db
    .select({ id: skillVersions.id })
    .from(skillVersions)
    .where(
      and(
        eq(skillVersions.skillId, input.skillId),
        eq(skillVersions.projectId, requireActor(ctx).projectId),
        ...(input.versionId ? [eq(skillVersions.id, input.versionId)] : [ne(skillVersions.status, 'revoked')]),
      ),
    )
    .orderBy(desc(skillVersions.version))
    .limit(1);
  return row?.id;
}
