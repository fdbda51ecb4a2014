import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sessionSkillBindings, skillVersions } from '../../db/schema/index.ts';

export type SessionSkill = {
  skillId: string;
  skillVersionId: string;
  version: number;
  name: string;
  description: string;
  instructions: string;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: string[];
  files: Array<{ path: string; contentType: string; dataBase64: string }>;
  status: 'active' | 'deprecated' | 'revoked';
};

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
