import { and, eq, inArray } from 'drizzle-orm';
import { approvals, runs, toolCalls } from '../../../db/schema/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findToolCall } from './load.ts';
import type { ToolCallRow } from './public.ts';

/** The actor's project's tool calls with these ids (any missing are left out). */
export async function readToolCalls({ ctx, input }: { ctx: ServiceContext; input: { toolCallIds: readonly string[] } }): Promise<ToolCallRow[]> {
  if (input.toolCallIds.length === 0) return [];
  return ctx.db
    .select()
    .from(toolCalls)
    .where(and(eq(toolCalls.projectId, requireActor(ctx).projectId), inArray(toolCalls.id, [...input.toolCallIds])));
}

/**
 * A tool call about to be answered, locked in the runtime's order: its run's row first, then the
 * call's. The runtime's transitions lock the run before they write (and append), so an answer
 * sent the moment a call appears queues behind the run's move into waiting instead of crossing
 * it in a deadlock.
 */
export async function lockToolCallForAnswer({ ctx, input }: { ctx: ServiceContext; input: { toolCallId: string } }): Promise<ToolCallRow> {
  const { runId } = await findToolCall(ctx, input.toolCallId);
  await ctx.db.select({ id: runs.id }).from(runs).where(eq(runs.id, runId)).for('update');
  return findToolCall(ctx, input.toolCallId, { forUpdate: true });
}

/** The approval gate of a tool call, if it has one. */
export async function approvalOfToolCall({ ctx, input }: { ctx: ServiceContext; input: { toolCallId: string } }): Promise<{ id: string } | undefined> {
  const [approval] = await ctx.db
    .select({ id: approvals.id })
    .from(approvals)
    .where(and(eq(approvals.projectId, requireActor(ctx).projectId), eq(approvals.toolCallId, input.toolCallId)));
  return approval;
}
