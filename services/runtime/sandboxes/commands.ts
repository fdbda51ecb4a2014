import { eq } from 'drizzle-orm';
import { sandboxCommands } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { SandboxRow } from './ensure.ts';

export type SandboxCommandRow = typeof sandboxCommands.$inferSelect;

/**
 * Records that a tool call's command is about to run (once per tool call) and returns the row;
 * a retried activity gets the existing row back and, when it completed, reuses its result
 * instead of running the command again.
 */
export async function beginSandboxCommand({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sandbox: SandboxRow; runId: string; toolCallId: string; toolName: string; safeCommand: Record<string, unknown> };
}): Promise<SandboxCommandRow> {
  await ctx.db
    .insert(sandboxCommands)
    .values({
      organizationId: input.sandbox.organizationId,
      projectId: input.sandbox.projectId,
      sandboxId: input.sandbox.id,
      runId: input.runId,
      toolCallId: input.toolCallId,
      toolName: input.toolName,
      safeCommand: input.safeCommand,
      startedAt: ctx.clock.now(),
    })
    .onConflictDoNothing({ target: sandboxCommands.toolCallId });
  const [row] = await ctx.db.select().from(sandboxCommands).where(eq(sandboxCommands.toolCallId, input.toolCallId));
  return row!;
}

export async function completeSandboxCommand({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: {
    toolCallId: string;
    safeCommand: Record<string, unknown>;
    safeResult: Record<string, unknown>;
    resultValue: Record<string, unknown> | null;
    failure: string | null;
  };
}): Promise<void> {
  await ctx.db
    .update(sandboxCommands)
    .set({ safeCommand: input.safeCommand, safeResult: input.safeResult, resultValue: input.resultValue, failure: input.failure, completedAt: ctx.clock.now() })
    .where(eq(sandboxCommands.toolCallId, input.toolCallId));
}
