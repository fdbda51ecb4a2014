import type * as v from 'valibot';
import { publicProjectBudget } from '../../../domain/usage/budget.ts';
import { effectiveRetention, formatRetention, type RetentionWindows } from '../../../domain/retention.ts';
import type { PublicOrganizationShape, PublicProjectShape } from '../../../domain/public-shapes/access.ts';
import type { organizations, projects } from '../../../db/schema/index.ts';

type ProjectRow = typeof projects.$inferSelect;
type OrganizationRow = typeof organizations.$inferSelect;

export type PublicProject = v.InferOutput<typeof PublicProjectShape>;
export type PublicOrganization = v.InferOutput<typeof PublicOrganizationShape>;
export type AgentProtocols = PublicProject['agentProtocols'];

export const toProjectResponse = (row: ProjectRow): PublicProject => ({
  id: row.id,
  organizationId: row.organizationId,
  slug: row.slug,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  retention: retentionResponse({ sessionsMinutes: row.sessionRetentionMinutes, eventsMinutes: row.eventRetentionMinutes }),
  budget: publicProjectBudget({ maxCostNanos: row.budgetMonthlyMaxCostNanos, maxTokens: row.budgetMonthlyMaxTokens }),
  agentProtocols: agentProtocolsOf(row),
});

/** The project's switches for the standard agent protocols, as the API writes them. */
export const agentProtocolsOf = (row: Pick<ProjectRow, 'a2aEnabled' | 'mcpServerEnabled'>): AgentProtocols => ({
  a2a: row.a2aEnabled,
  mcp: row.mcpServerEnabled,
});

/** Windows as the API writes them (`30d`); null stays null. */
export function retentionResponse(windows: RetentionWindows): { sessions: string | null; events: string | null } {
  return {
    sessions: windows.sessionsMinutes === null ? null : formatRetention(windows.sessionsMinutes),
    events: windows.eventsMinutes === null ? null : formatRetention(windows.eventsMinutes),
  };
}

/** What applies to the project now: its overrides over the installation's defaults. */
export const effectiveRetentionResponse = (row: ProjectRow, installation: RetentionWindows) => retentionResponse(effectiveRetention(row, installation));

export const toOrganizationResponse = (row: OrganizationRow): PublicOrganization => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
});
