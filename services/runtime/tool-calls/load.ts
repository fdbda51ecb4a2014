import { and, eq } from 'drizzle-orm';
import { toolCalls } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ToolCallRow } from './public.ts';

/** A tool call of the actor's project, or 404. `forUpdate` locks the row to the end of the transaction. */
export async function findToolCall(ctx: ServiceContext, toolCallId: string, options: { forUpdate?: boolean } = {}): Promise<ToolCallRow> {
  const actor = requireActor(ctx);
  const query = ctx.db
    .select()
    .from(toolCalls)
    .where(and(eq(toolCalls.id, toolCallId), eq(toolCalls.projectId, actor.projectId)));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('No tool call with that id in this project');
  return row;
}
