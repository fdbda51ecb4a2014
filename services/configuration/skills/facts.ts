import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { skills, skillVersions } from '../../../db/schema/index.ts';
import type { SkillVersionFact } from '../../../domain/agent-config/facts.ts';
import { isUuid } from '../../../domain/uuid.ts';

/**
 * What agent publication needs about the Skill versions a config names: one fact per id that
 * exists in the organization, keyed by version id (absent = unknown). Versions of other
 * projects are included with their `projectId` so the caller can reject them; removed Skills
 * give `skillRemoved: true`. Ids that are not UUIDs are simply unknown.
 */
export async function loadSkillVersionFacts(db: Executor, input: { organizationId: string; ids: string[] }): Promise<Map<string, SkillVersionFact>> {
  const ids = [...new Set(input.ids.filter((id) => isUuid(id)))];
  const facts = new Map<string, SkillVersionFact>();
  if (ids.length === 0) return facts;
  const rows = await db
    .select({
      skillVersionId: skillVersions.id,
      skillId: skillVersions.skillId,
      projectId: skillVersions.projectId,
      name: skillVersions.name,
      status: skillVersions.status,
      enabled: skills.enabled,
      deletedAt: skills.deletedAt,
    })
    .from(skillVersions)
    .innerJoin(skills, eq(skills.id, skillVersions.skillId))
    .where(and(eq(skillVersions.organizationId, input.organizationId), inArray(skillVersions.id, ids)));
  for (const row of rows) {
    facts.set(row.skillVersionId, {
      skillVersionId: row.skillVersionId,
      skillId: row.skillId,
      projectId: row.projectId,
      name: row.name,
      skillEnabled: row.enabled,
      skillRemoved: row.deletedAt !== null,
      status: row.status,
    });
  }
  return facts;
}
