import { and, eq } from 'drizzle-orm';
import { skills, skillVersions } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import type { SkillVersionContent } from '../../../domain/skills/content.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { skillContentHash } from './content-hash.ts';
import { findVersionManifest, type SkillRow } from './load.ts';
import type { PublicSkillVersion } from './public.ts';

/**
 * Appends the next version to a Skill whose row the caller has locked in `tx`, so version
 * numbers are gap-free and the duplicate check cannot race. Content must already be valid.
 * Content identical to any earlier version of the Skill (same hash, whatever its status) is a
 * 409: versions are content-addressed like agent versions, and re-publishing a revoked package
 * must not bring it back under a new number.
 */
export async function insertSkillVersion(tx: ServiceContext, actor: Actor, skill: SkillRow, content: SkillVersionContent): Promise<PublicSkillVersion> {
  const contentHash = skillContentHash(content);
  const [duplicate] = await tx.db
    .select({ id: skillVersions.id, version: skillVersions.version })
    .from(skillVersions)
    .where(and(eq(skillVersions.skillId, skill.id), eq(skillVersions.contentHash, contentHash)));
  if (duplicate) {
    throw new ConflictError(`Version ${duplicate.version} of this Skill already has identical content`, { skillVersionId: duplicate.id, contentHash });
  }
  const version = skill.latestVersion + 1;
  const now = tx.clock.now();
  await tx.db.update(skills).set({ latestVersion: version, updatedAt: now }).where(eq(skills.id, skill.id));
  const [row] = await tx.db
    .insert(skillVersions)
    .values({
      organizationId: skill.organizationId,
      projectId: skill.projectId,
      skillId: skill.id,
      version,
      ...content,
      contentHash,
      status: 'active',
      createdByPrincipalId: actor.principalId,
      createdAt: now,
    })
    .returning({ id: skillVersions.id });
  await recordAudit(tx, {
    action: 'skill_version.published',
    targetType: 'skill_version',
    targetId: row!.id,
    details: { skillId: skill.id, version, contentHash },
  });
  return findVersionManifest(tx, actor, skill.id, row!.id);
}
