import { and, eq } from 'drizzle-orm';
import { skillDrafts } from '../../../db/schema/index.ts';

import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toSkillDraftSummary, type PublicSkillDraftSummary } from './public.ts';

/** The project's open drafts, newest first, without instructions, folders or files. */
export async function listSkillDrafts({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicSkillDraftSummary>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: skillDrafts.createdAt, id: skillDrafts.id }, input.cursor, 'desc');
  const rows = await ctx.db
    .select()
    .from(skillDrafts)
    .where(and(eq(skillDrafts.organizationId, actor.organizationId), eq(skillDrafts.projectId, actor.projectId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toSkillDraftSummary);
}
