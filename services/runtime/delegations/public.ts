import type * as v from 'valibot';
import type { PublicDelegationShape } from '../../../domain/public-shapes/delegations.ts';
import { asc, desc, eq, inArray } from 'drizzle-orm';
import { delegationCalls, delegations, runs, sessions, toolCalls } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { workspaceOwnerOf } from '../sandboxes/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

export type DelegationRow = typeof delegations.$inferSelect;

/** A delegation relation as the API shows it (spec 1 session detail `delegations`): never messages. */
export type PublicDelegation = v.InferOutput<typeof PublicDelegationShape>;

/** The delegations of a coordinator session, oldest first, with each child's latest run. */
export async function delegationsOfSession({ ctx, input }: { ctx: ServiceContext; input: { coordinatorSessionId: string } }): Promise<PublicDelegation[]> {
  const rows = await ctx.db
    .select()
    .from(delegations)
    .where(eq(delegations.coordinatorSessionId, input.coordinatorSessionId))
    .orderBy(delegations.createdAt, delegations.id);
  return toPublicDelegations({ ctx, input: { rows } });
}

/** One delegation of the actor's project under the path's coordinator session (404 otherwise). */
export async function findDelegation({
  ctx,
  input,
  options = {},
}: {
  ctx: ServiceContext;
  input: { sessionId: string; delegationId: string };
  options?: { forUpdate?: boolean };
}): Promise<DelegationRow> {
  const actor = requireActor(ctx);
  const query = ctx.db.select().from(delegations).where(eq(delegations.id, input.delegationId));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row || row.projectId !== actor.projectId || row.coordinatorSessionId !== input.sessionId) throw new NotFoundError('Delegation not found');
  return row;
}

export async function toPublicDelegations({ ctx, input }: { ctx: ServiceContext; input: { rows: readonly DelegationRow[] } }): Promise<PublicDelegation[]> {
  const { rows } = input;
  if (rows.length === 0) return [];
  const children = await ctx.db
    .select()
    .from(sessions)
    .where(
      inArray(
        sessions.id,
        rows.map((row) => row.childSessionId),
      ),
    );
  const childById = new Map(children.map((child) => [child.id, child]));
  const latestIds = children.map((child) => child.latestRunId).filter((id): id is string => id !== null);
  const latest =
    latestIds.length > 0
      ? await ctx.db.select({ id: runs.id, state: runs.state }).from(runs).where(inArray(runs.id, latestIds)).orderBy(desc(runs.createdAt))
      : [];
  const stateOf = new Map(latest.map((run) => [run.id, run.state]));
  const workspace = rows.length > 0 ? await workspaceOwnerOf(ctx, rows[0]!.coordinatorSessionId) : null;
  // Every run of the child sessions, with the call that asked for it when one did.
  const childRuns = await ctx.db
    .select({
      sessionId: runs.sessionId,
      childRunId: runs.id,
      state: runs.state,
      createdAt: runs.createdAt,
      admittedAt: runs.admittedAt,
      settledAt: runs.settledAt,
      toolCallId: delegationCalls.toolCallId,
      coordinatorRunId: toolCalls.runId,
    })
    .from(runs)
    .leftJoin(delegationCalls, eq(delegationCalls.childRunId, runs.id))
    .leftJoin(toolCalls, eq(toolCalls.id, delegationCalls.toolCallId))
    .where(
      inArray(
        runs.sessionId,
        rows.map((row) => row.childSessionId),
      ),
    )
    .orderBy(asc(runs.createdAt), asc(runs.id));
  return rows.map((row) => {
    const child = childById.get(row.childSessionId)!;
    return {
      id: row.id,
      coordinatorSessionId: row.coordinatorSessionId,
      delegateKey: row.delegateKey,
      childAgentVersionId: row.childAgentVersionId,
      childSessionId: row.childSessionId,
      childThreadId: child.threadId,
      workspaceSessionId: workspace!,
      state: row.closedAt ? 'closed' : 'open',
      latestChildRunId: child.latestRunId,
      latestChildRunState: child.latestRunId ? (stateOf.get(child.latestRunId) ?? null) : null,
      createdAt: row.createdAt.toISOString(),
      closedAt: row.closedAt?.toISOString() ?? null,
      childRuns: childRuns
        .filter((run) => run.sessionId === row.childSessionId)
        .map((run) => ({
          childRunId: run.childRunId,
          coordinatorRunId: run.coordinatorRunId,
          toolCallId: run.toolCallId,
          state: run.state,
          queuedAt: run.createdAt.toISOString(),
          startedAt: run.admittedAt?.toISOString() ?? null,
          settledAt: run.settledAt?.toISOString() ?? null,
        })),
    };
  });
}
