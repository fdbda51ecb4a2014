import { inArray } from 'drizzle-orm';
import { sessionSkillBindings, skillVersions } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';

/**
 * Copies the version's `skillVersionIds` into the session's own bindings, in authored order.
 * They are never rewritten: a later agent version or Skill version does not touch them (the
 * runtime reads each bound version's lifecycle status when it loads Skills).
 */
export async function copySkillBindings(
  tx: ServiceContext,
  /** `held`: the insert waits for the transaction's next event append (`holdWrite`), as the session's own insert does. */
  input: { sessionId: string; organizationId: string; projectId: string; config: Record<string, unknown>; held?: boolean },
): Promise<void> {
  const ids = Array.isArray(input.config.skillVersionIds) ? (input.config.skillVersionIds as string[]) : [];
  if (ids.length === 0) return;
  const found = await tx.db.select({ id: skillVersions.id, skillId: skillVersions.skillId }).from(skillVersions).where(inArray(skillVersions.id, ids));
  const skillOf = new Map(found.map((row) => [row.id, row.skillId]));
  const rows = ids.flatMap((skillVersionId, position) => {
    const skillId = skillOf.get(skillVersionId);
    // Publication checked every id; versions are never deleted, so a miss means corrupt data.
    if (!skillId) throw new Error(`skill version ${skillVersionId} of the pinned agent version does not exist`);
    return [{ sessionId: input.sessionId, organizationId: input.organizationId, projectId: input.projectId, position, skillId, skillVersionId }];
  });
  const insert = tx.db.insert(sessionSkillBindings).values(rows);
  if (input.held) await holdWrite(tx, insert);
  else await insert;
}
