import { and, eq } from 'drizzle-orm';
import { projects } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toProjectResponse, type PublicProject } from './public.ts';

/** Every project of the actor's organization, oldest first. */
export async function listProjects({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicProject>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: projects.createdAt, id: projects.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(projects)
    .where(and(eq(projects.organizationId, actor.organizationId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toProjectResponse);
}
