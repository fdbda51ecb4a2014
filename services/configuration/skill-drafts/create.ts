import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { skillDraftEntries, skillDrafts, skillVersions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { CreateSkillDraftInput } from '../../../domain/skills/drafts.ts';
import { parentDirectories } from '../../../domain/skills/path.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { findLiveSkill } from '../skills/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toSkillDraftResponse, type PublicSkillDraft } from './public.ts';

/**
 * Opens a draft: blank (`{}`), or a clone of one version of a live Skill of the project
 * (`{skillId, sourceSkillVersionId}`), copying its metadata, instructions and files, with the
 * files' folders. A cloned draft publishes that Skill's next version. Any version can be cloned,
 * revoked ones included (to fix them).
 */
export async function createSkillDraft({ ctx, input }: { ctx: ServiceContext; input: CreateSkillDraftInput }): Promise<PublicSkillDraft> {
  const actor = requireActor(ctx);
  const parsed = v.parse(CreateSkillDraftInput, input);
  return withTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const base = { organizationId: actor.organizationId, projectId: actor.projectId, createdAt: now, updatedAt: now };
    if (!parsed.skillId || !parsed.sourceSkillVersionId) {
      const [draft] = await tx.db
        .insert(skillDrafts)
        .values({ ...base, metadata: {}, allowedTools: [] })
        .returning();
      return toSkillDraftResponse(draft!, []);
    }
    const source = await findSourceVersion(tx, actor, parsed.skillId, parsed.sourceSkillVersionId);
    const [draft] = await tx.db
      .insert(skillDrafts)
      .values({
        ...base,
        skillId: source.skillId,
        sourceSkillVersionId: source.id,
        name: source.name,
        description: source.description,
        instructions: source.instructions,
        license: source.license,
        compatibility: source.compatibility,
        metadata: source.metadata,
        allowedTools: source.allowedTools,
      })
      .returning();
    const folders = [...new Set(source.files.flatMap((file) => parentDirectories(file.path)))];
    const entries = [
      ...folders.map((path) => ({ path, kind: 'directory' as const, contentType: null, dataBase64: null })),
      ...source.files.map((file) => ({ path: file.path, kind: 'file' as const, contentType: file.contentType, dataBase64: file.dataBase64 })),
    ].map((entry) => ({ ...entry, draftId: draft!.id, organizationId: actor.organizationId, projectId: actor.projectId, createdAt: now }));
    const inserted = entries.length > 0 ? await tx.db.insert(skillDraftEntries).values(entries).returning() : [];
    return toSkillDraftResponse(draft!, inserted);
  });
}

async function findSourceVersion(tx: ServiceContext, actor: Actor, skillId: string, versionId: string) {
  const skill = await findLiveSkill(tx, actor, skillId);
  const [version] = await tx.db
    .select()
    .from(skillVersions)
    .where(and(eq(skillVersions.id, versionId), eq(skillVersions.skillId, skill.id), eq(skillVersions.projectId, actor.projectId)));
  if (!version) throw new NotFoundError('No version with that id for this Skill');
  return version;
}
