import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { skillVersions } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError } from '../../../domain/errors.ts';
import { canTransitionSkillVersion, SetSkillVersionLifecycleInput } from '../../../domain/skills/lifecycle.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findLiveSkill, findVersionManifest } from './load.ts';
import type { PublicSkillVersion } from './public.ts';

/**
 * Deprecates or revokes a version (active → deprecated, active | deprecated → revoked).
 * Asking for the current status answers 200 unchanged; a move out of `revoked` (revoked is
 * final) is a 409: the request is well-formed but the version's state forbids it. Revocation also stops sessions that bound the version; the
 * runtime reads the status when it loads Skills.
 */
export async function setSkillVersionLifecycle({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { skillId: string; versionId: string } & SetSkillVersionLifecycleInput;
}): Promise<PublicSkillVersion> {
  const actor = requireActor(ctx);
  const { status } = v.parse(SetSkillVersionLifecycleInput, { status: input.status });
  return withTransaction(ctx, async (tx) => {
    const skill = await findLiveSkill(tx, actor, input.skillId, { lock: true });
    const [row] = await tx.db
      .select({ id: skillVersions.id, status: skillVersions.status, version: skillVersions.version })
      .from(skillVersions)
      .where(and(eq(skillVersions.id, input.versionId), eq(skillVersions.skillId, skill.id)));
    if (!row) throw new NotFoundError('No version with that id for this Skill');
    if (row.status !== status) {
      if (!canTransitionSkillVersion(row.status, status)) {
        throw new ConflictError(`A ${row.status} Skill version cannot become ${status}`, { status: row.status });
      }
      await tx.db.update(skillVersions).set({ status }).where(eq(skillVersions.id, row.id));
      await recordAudit(tx, {
        action: `skill_version.${status}`,
        targetType: 'skill_version',
        targetId: row.id,
        details: { skillId: skill.id, version: row.version, from: row.status },
      });
    }
    return findVersionManifest(tx, actor, skill.id, row.id);
  });
}
