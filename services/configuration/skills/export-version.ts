import { and, eq } from 'drizzle-orm';
import { skillVersions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { SkillVersionContent } from '../../../domain/skills/content.ts';
import { renderSkillMd } from '../../../domain/skills/skill-md.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { findLiveSkill } from './load.ts';
import type { PublicSkillVersionExport } from './public.ts';

/**
 * The exact content of one version of a live Skill: instructions and every file's bytes as
 * stored (canonical base64, so decoding gives back the uploaded bytes), plus the SKILL.md the
 * manifest fields render to. Revoked and deprecated versions export too: export is a read.
 */
export async function exportSkillVersion({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { skillId: string; versionId: string };
}): Promise<PublicSkillVersionExport> {
  const actor = requireActor(ctx);
  const skill = await findLiveSkill(ctx, actor, input.skillId);
  const [row] = await ctx.db
    .select()
    .from(skillVersions)
    .where(and(eq(skillVersions.id, input.versionId), eq(skillVersions.skillId, skill.id), eq(skillVersions.projectId, actor.projectId)));
  if (!row) throw new NotFoundError('No version with that id for this Skill');
  const content: SkillVersionContent = {
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    license: row.license,
    compatibility: row.compatibility,
    metadata: row.metadata,
    allowedTools: row.allowedTools,
    files: row.files.map((file) => ({ path: file.path, contentType: file.contentType, dataBase64: file.dataBase64 })),
  };
  return {
    skillId: skill.id,
    skillVersionId: row.id,
    version: row.version,
    contentHash: row.contentHash,
    status: row.status,
    ...content,
    skillMd: renderSkillMd(content),
  };
}
