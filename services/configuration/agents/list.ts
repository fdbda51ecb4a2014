import { and, eq, inArray, isNull } from 'drizzle-orm';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toAgentResponse, type PublicAgent } from './public.ts';

/** Live agents of the project, oldest first, each with its latest version's model and sandbox. */
export async function listAgents({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicAgent>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: agents.createdAt, id: agents.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.projectId, actor.projectId), isNull(agents.deletedAt), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const latestIds = rows.map((row) => row.latestVersionId).filter((id): id is string => id !== null);
  const versions = latestIds.length ? await ctx.db.select().from(agentVersions).where(inArray(agentVersions.id, latestIds)) : [];
  const byId = new Map(versions.map((version) => [version.id, version]));
  return toPage(rows, input.limit, (row) => toAgentResponse(row, byId.get(row.latestVersionId!)!));
}
