import { and, desc, eq, lt, or } from 'drizzle-orm';
import { skillDrafts } from '../../db/schema/index.ts';
import { ValidationError } from '../../domain/errors.ts';
import { decodeKeysetCursor, toPage, type Page } from '../../domain/pagination.ts';
import type { ServiceContext } from '../context.ts';
import { requireActor } from '../require-actor.ts';
import { toSkillDraftSummary, type PublicSkillDraftSummary } from './public.ts';

/** The project's open drafts, newest first, without instructions, folders or files. */
export async function listSkillDrafts({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicSkillDraftSummary>> {
  const actor = requireActor(ctx);
  const after = input.cursor ? decodeKeysetCursor(input.cursor) : null;
  if (input.cursor && !after) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  const rows = await ctx.db
    .select()
    .from(skillDrafts)
    .where(
      and(
        eq(skillDrafts.organizationId, actor.organizationId),
        eq(skillDrafts.projectId, actor.projectId),
        after ? or(lt(skillDrafts.createdAt, after.createdAt), and(eq(skillDrafts.createdAt, after.createdAt), lt(skillDrafts.id, after.id))) : undefined,
      ),
    )
    .orderBy(desc(skillDrafts.createdAt), desc(skillDrafts.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toSkillDraftSummary);
}
