import { and, eq, isNull } from 'drizzle-orm';
import { projects, runs } from '../../../db/schema/index.ts';
import { ConflictError, ForbiddenError } from '../../../domain/errors.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { forgetCachedApiKeysAfterCommit } from '../auth/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import type { RunStarter } from '../../kernel/run-starter.ts';
import { assertOrganizationAdministrator } from './authorize.ts';
import { isDefaultProject } from '../auth/index.ts';

/**
 * Hard-deletes a project and every row it owns: every project-owned table references
 * `projects.id` with ON DELETE CASCADE, so one delete removes agents, sessions, runs, events,
 * audit trail and the rest. Organization-shared rows are untouched. Refused for the project the
 * caller acts in, for the organization's last project and, in edge-proxy mode, for the default
 * project. Its objects in storage stay until the worker's retention sweep removes the project's
 * folder on each storage connection (`sweepDeletedProjectObjects`,
 * docs/decisions/retention-objects.md). After commit, the workflow of every run that was
 * still unsettled is told to stop: it finds its run gone and ends at once, instead of waiting for
 * a tool result or a deadline that will never come.
 */
export async function deleteProject({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { runStarter: RunStarter; settings: { authMode: string } };
  input: { projectId: string };
}): Promise<{ id: string; deleted: true }> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  return withTransaction(ctx, async (tx) => {
    // Lock the organization's projects so two concurrent deletes cannot remove the last two.
    const rows = await tx.db.select({ id: projects.id }).from(projects).where(eq(projects.organizationId, actor.organizationId)).for('update');
    if (!rows.some((row) => row.id === input.projectId)) throw new ForbiddenError('The project is outside the principal organization');
    if (input.projectId === actor.projectId) throw new ConflictError('The project the caller is acting in cannot be deleted');
    if (rows.length <= 1) throw new ConflictError("The organization's last project cannot be deleted");
    if (deps.settings.authMode === 'edge_proxy' && (await isDefaultProject(tx.db, input.projectId))) {
      throw new ConflictError('The default project cannot be deleted in an edge-proxy deployment');
    }
    const unsettled = await tx.db
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.projectId, input.projectId), isNull(runs.settledAt)));
    await tx.db.delete(projects).where(and(eq(projects.id, input.projectId), eq(projects.organizationId, actor.organizationId)));
    forgetCachedApiKeysAfterCommit(tx);
    for (const run of unsettled) tx.afterCommit.push(() => deps.runStarter.requestCancellation(run.id));
    await recordAudit(tx, { action: 'project.deleted', targetType: 'project', targetId: input.projectId });
    return { id: input.projectId, deleted: true as const };
  });
}
