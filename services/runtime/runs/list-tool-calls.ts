import { and, eq } from 'drizzle-orm';
import { toolCalls } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { findRun } from './load.ts';
import { toToolCallResponse, type PublicToolCall } from '../tool-calls/index.ts';

/**
 * The tool calls of one run of the actor's project (`GET /tool-calls?runId=`), in the order the
 * model made them (turn by turn, provider order within a turn). 404 for a run of another project.
 */
export async function listToolCalls({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; limit: number; cursor?: string | undefined };
}): Promise<Page<PublicToolCall>> {
  const run = await findRun(ctx, input.runId);
  const page = keysetPage(toolCalls, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(toolCalls)
    .where(and(eq(toolCalls.projectId, run.projectId), eq(toolCalls.runId, run.id), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toToolCallResponse);
}
