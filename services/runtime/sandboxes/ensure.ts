import type { AttachedMemoryStore } from '../../../domain/memory/index.ts';
import { and, eq } from 'drizzle-orm';
import { agentVersions, runs, sandboxProviders, sandboxes, sessions } from '../../../db/schema/index.ts';
import type { RestrictedEgress } from '../../../db/schema/connections.ts';
import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';

export type SandboxRow = typeof sandboxes.$inferSelect;

export type RunSandbox = {
  sandbox: SandboxRow;
  /** The connection's current allowlist: configuration is read at run time, never pinned. */
  egress: RestrictedEgress;
  capabilities: AgentConfig['sandbox']['capabilities'];
  run: { id: string; sessionId: string; organizationId: string; projectId: string };
  /** The memory stores the run's session attached (mounted at /mnt/memory for its commands). */
  memoryStores: AttachedMemoryStore[];
};

/** The session that owns a session's workspace: the root of its delegation chain. */
export async function workspaceOwnerOf(ctx: ServiceContext, sessionId: string): Promise<string> {
  let current = sessionId;
  for (let depth = 0; depth < 64; depth++) {
    const [row] = await ctx.db.select({ parentSessionId: sessions.parentSessionId }).from(sessions).where(eq(sessions.id, current));
    if (!row?.parentSessionId) return current;
    current = row.parentSessionId;
  }
  throw new Error(`session ${sessionId} has a delegation chain deeper than 64`);
}

/**
 * The run's workspace sandbox, created on first use and reused by every later run of the
 * session (and of sessions delegated from it). Null when the pinned version has no sandbox.
 * Idempotent: a concurrent creator's row wins and is returned.
 */
export async function ensureRunSandbox({ ctx, input }: { ctx: ServiceContext; input: { runId: string } }): Promise<RunSandbox | null> {
  const [run] = await ctx.db
    .select({
      sessionId: runs.sessionId,
      agentVersionId: runs.agentVersionId,
      organizationId: runs.organizationId,
      projectId: runs.projectId,
      memoryStores: sessions.memoryStores,
    })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    .where(eq(runs.id, input.runId));
  if (!run) throw new NotFoundError('No run with that id');
  const [version] = await ctx.db.select({ config: agentVersions.config }).from(agentVersions).where(eq(agentVersions.id, run.agentVersionId));
  const policy = (version!.config as unknown as AgentConfig).sandbox;
  if (!policy.enabled || policy.provider === null || policy.snapshotId === null) return null;
  const [provider] = await ctx.db
    .select()
    .from(sandboxProviders)
    .where(and(eq(sandboxProviders.organizationId, run.organizationId), eq(sandboxProviders.key, policy.provider)));
  if (!provider) throw new NotFoundError(`The sandbox provider "${policy.provider}" of the pinned version no longer exists`);
  const workspaceSessionId = await workspaceOwnerOf(ctx, run.sessionId);
  const sandbox = await withTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    await tx.db
      .insert(sandboxes)
      .values({
        organizationId: run.organizationId,
        projectId: run.projectId,
        workspaceSessionId,
        providerId: provider.id,
        snapshotId: policy.snapshotId!,
        network: policy.network,
        createdAt: now,
        lastUsedAt: now,
      })
      .onConflictDoNothing({ target: sandboxes.workspaceSessionId });
    const [row] = await tx.db.update(sandboxes).set({ lastUsedAt: now }).where(eq(sandboxes.workspaceSessionId, workspaceSessionId)).returning();
    return row!;
  });
  return {
    sandbox,
    egress: provider.restrictedEgress,
    capabilities: policy.capabilities,
    run: { id: input.runId, sessionId: run.sessionId, organizationId: run.organizationId, projectId: run.projectId },
    memoryStores: run.memoryStores,
  };
}
