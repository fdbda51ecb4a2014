import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { sessionSkillBindings, skillVersions, type SkillVersionStatus } from '../../../db/schema/index.ts';
import type { SkillVersionContent } from '../../../domain/skills/content.ts';

/** A bound Skill version: its content, and which version of which Skill it is, with its lifecycle status. */
export type SessionSkill = SkillVersionContent & { skillId: string; skillVersionId: string; version: number; contentHash: string; status: SkillVersionStatus };

/**
 * The Skill versions a session bound at creation, in binding order, with their content. A newer
 * version or a disabled Skill changes nothing here (bindings are copied for good); a revoked
 * version is returned with `status: 'revoked'` for the caller to leave out.
 */
export async function loadSessionSkills(db: Executor, sessionId: string): Promise<SessionSkill[]> {
  const rows = await db
    .select({
      skillId: sessionSkillBindings.skillId,
      skillVersionId: sessionSkillBindings.skillVersionId,
      version: skillVersions.version,
      name: skillVersions.name,
      description: skillVersions.description,
      instructions: skillVersions.instructions,
      license: skillVersions.license,
      compatibility: skillVersions.compatibility,
      metadata: skillVersions.metadata,
      allowedTools: skillVersions.allowedTools,
      files: skillVersions.files,
      contentHash: skillVersions.contentHash,
      status: skillVersions.status,
    })
    .from(sessionSkillBindings)
    .innerJoin(skillVersions, eq(skillVersions.id, sessionSkillBindings.skillVersionId))
    .where(eq(sessionSkillBindings.sessionId, sessionId))
    .orderBy(asc(sessionSkillBindings.position));
  return rows;
}

/** The ones a run may use: every bound version that is not revoked. */
export const usableSkills = (skills: readonly SessionSkill[]) => skills.filter((skill) => skill.status !== 'revoked');
