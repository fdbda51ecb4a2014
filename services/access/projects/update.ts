import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { projects } from '../../../db/schema/index.ts';
import { ForbiddenError } from '../../../domain/errors.ts';
import { UpdateProjectChanges } from '../../../domain/projects.ts';
import type { RetentionWindows } from '../../../domain/retention.ts';
import { publicProjectBudget, storedProjectBudget } from '../../../domain/usage/budget.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertOrganizationAdministrator } from './authorize.ts';
import { getProject, type ProjectDetail } from './get.ts';
import { agentProtocolsOf } from './public.ts';

/**
 * Changes a project's retention overrides, its monthly budget and its agent protocol switches
 * (`PATCH /projects/{id}`, docs/decisions/project-retention-overrides.md, docs/decisions/budgets.md
 * and docs/decisions/agent-protocol-switches.md). Each retention window given replaces the
 * project's (null restores the installation default), an omitted one stays; the next sweep
 * applies the new windows. A budget given replaces the project's (null removes it); the next
 * model call of any run checks it. Each protocol switch given replaces the project's, an omitted
 * one stays; the doors read it through `agentProtocolsOfProject`. Organization administration, like creating and
 * deleting projects; audited with the values before and after, in the same transaction.
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
  const { retention, budget, agentProtocols } = v.parse(UpdateProjectChanges, input.changes);
  return withTransaction(ctx, async (tx) => {
    const where = and(eq(projects.id, input.projectId), eq(projects.organizationId, actor.organizationId));
    const [before] = await tx.db.select().from(projects).where(where).for('no key update');
    if (!before) throw new ForbiddenError('The project is outside the principal organization');
    const retentionChanges = {
      ...(retention?.sessions !== undefined ? { sessionRetentionMinutes: retention.sessions } : {}),
      ...(retention?.events !== undefined ? { eventRetentionMinutes: retention.events } : {}),
    };
    const stored = budget === undefined ? null : storedProjectBudget(budget);
    const budgetChanges = stored ? { budgetMonthlyMaxCostNanos: stored.maxCostNanos, budgetMonthlyMaxTokens: stored.maxTokens } : {};
    const protocolChanges = {
      ...(agentProtocols?.a2a !== undefined ? { a2aEnabled: agentProtocols.a2a } : {}),
      ...(agentProtocols?.mcp !== undefined ? { mcpServerEnabled: agentProtocols.mcp } : {}),
    };
    const changes = { ...retentionChanges, ...budgetChanges, ...protocolChanges };
    if (Object.keys(changes).length === 0) return getProject({ ctx: tx, deps, input: { projectId: input.projectId } });
    await tx.db.update(projects).set(changes).where(where);
    const audit = (action: string, details: Record<string, unknown>) =>
      recordAudit(tx, { projectId: input.projectId, action, targetType: 'project', targetId: input.projectId, details });
    if (Object.keys(retentionChanges).length > 0)
      await audit('project.retention_changed', {
        before: { sessionsMinutes: before.sessionRetentionMinutes, eventsMinutes: before.eventRetentionMinutes },
        after: {
          sessionsMinutes: 'sessionRetentionMinutes' in retentionChanges ? retentionChanges.sessionRetentionMinutes : before.sessionRetentionMinutes,
          eventsMinutes: 'eventRetentionMinutes' in retentionChanges ? retentionChanges.eventRetentionMinutes : before.eventRetentionMinutes,
        },
      });
    if (stored)
      await audit('project.budget_changed', {
        before: publicProjectBudget({ maxCostNanos: before.budgetMonthlyMaxCostNanos, maxTokens: before.budgetMonthlyMaxTokens }),
        after: publicProjectBudget(stored),
      });
    if (Object.keys(protocolChanges).length > 0)
      await audit('project.agent_protocols_changed', { before: agentProtocolsOf(before), after: agentProtocolsOf({ ...before, ...protocolChanges }) });
    return getProject({ ctx: tx, deps, input: { projectId: input.projectId } });
  });
}
