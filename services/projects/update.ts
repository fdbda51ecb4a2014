import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { projects } from '../../db/schema/index.ts';
import { ForbiddenError } from '../../domain/errors.ts';
import { UpdateProjectChanges } from '../../domain/projects.ts';
import type { RetentionWindows } from '../../domain/retention.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { ServiceContext } from '../service-context.ts';
import { requireActor } from '../require-actor.ts';
import { withTransaction } from '../transaction.ts';
import { assertOrganizationAdministrator } from './authorize.ts';
import { getProject, type ProjectDetail } from './get.ts';

/**
 * Changes a project's retention overrides (`PATCH /projects/{id}`, docs/decisions.md
 * "Retention"): each window given replaces the project's (null restores the installation
 * default), an omitted one stays. The next sweep applies the new windows; a shorter one deletes
 * what is already older. Organization administration, like creating and deleting projects;
 * audited with the windows before and after.
 */
export async function updateProject({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { retention: RetentionWindows };
  input: { projectId: string; changes: UpdateProjectChanges };
}): Promise<ProjectDetail> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const { retention } = v.parse(UpdateProjectChanges, input.changes);
  return withTransaction(ctx, async (tx) => {
    const where = and(eq(projects.id, input.projectId), eq(projects.organizationId, actor.organizationId));
    const [before] = await tx.db.select().from(projects).where(where).for('no key update');
    if (!before) throw new ForbiddenError('The project is outside the principal organization');
    const changes = {
      ...(retention.sessions !== undefined ? { sessionRetentionMinutes: retention.sessions } : {}),
      ...(retention.events !== undefined ? { eventRetentionMinutes: retention.events } : {}),
    };
    if (Object.keys(changes).length > 0) {
      await tx.db.update(projects).set(changes).where(where);
      await recordAudit(tx, {
        projectId: input.projectId,
        action: 'project.retention_changed',
        targetType: 'project',
        targetId: input.projectId,
        details: {
          before: { sessionsMinutes: before.sessionRetentionMinutes, eventsMinutes: before.eventRetentionMinutes },
          after: {
            sessionsMinutes: 'sessionRetentionMinutes' in changes ? changes.sessionRetentionMinutes : before.sessionRetentionMinutes,
            eventsMinutes: 'eventRetentionMinutes' in changes ? changes.eventRetentionMinutes : before.eventRetentionMinutes,
          },
        },
      });
    }
    return getProject({ ctx: tx, deps, input: { projectId: input.projectId } });
  });
}
