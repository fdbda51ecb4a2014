import { and, asc, eq, inArray, isNotNull, isNull, lt, notInArray, sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '../../../db/client.ts';
import {
  aggregateEventCounters,
  approvals,
  attachments,
  harnessOperationCalls,
  messages,
  projects,
  retentionObjectDeletions,
  runs,
  sessions,
  threads,
  toolCalls,
  workspaceBackups,
} from '../../../db/schema/index.ts';
import { effectiveRetention, type RetentionWindows } from '../../../domain/retention.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';

export type SessionPurgeResult = {
  /** Session trees (a root session with its delegated sessions) deleted. */
  purged: number;
  /** Sessions deleted, delegated ones included. */
  sessions: number;
  /** True when the budget ran out with candidates left: call again. */
  more: boolean;
  /** Candidates kept this time (a request held one of their sessions, or a delegated session's run is unsettled). */
  kept: string[];
};

type Candidate = { id: string; organizationId: string; projectId: string; cutoff: Date | null };

/**
 * Deletes settled sessions whose retention window has passed (docs/decisions/settled-session-retention.md),
 * at most `batchSize` session trees per call, each project's in one short transaction.
 *
 * A session tree is a root session with its delegated sessions (they share its workspace and
 * belong to it). It is expired when none of its runs is unsettled and the latest activity of any
 * of its sessions is older than the project's window (its override, else the installation's); a
 * tree the tenant deleted (`DELETE /sessions/{id}`) goes as soon as its runs have settled,
 * whatever the window. A run in flight is never touched: the tree's session rows are locked
 * (`SKIP LOCKED`: a tree a request is working on waits for the next sweep) before its runs are
 * checked, and every verb that queues a run locks its session first, so no run can start in a
 * tree being deleted.
 *
 * With the rows go everything they own (runs, messages, tool calls, approvals, model
 * invocations, sandboxes and their commands, attachments, workspace backups, delegations,
 * Harness Operation threads, pending turns, their event counters); the objects the rows named
 * are recorded in `retention_object_deletions` in the same transaction, for
 * `deleteRetainedObjects` to remove from storage after commit. Product events are not touched:
 * they have their own window (`purgeExpiredEvents`).
 */
export async function purgeExpiredSessions(
  ctx: ServiceContext,
  input: { installation: RetentionWindows; batchSize: number; skip?: readonly string[] },
): Promise<SessionPurgeResult> {
  const result: SessionPurgeResult = { purged: 0, sessions: 0, more: false, kept: [] };
  // Candidates an earlier call kept are left out for a while, so they cannot fill every batch.
  const notSkipped = input.skip && input.skip.length > 0 ? notInArray(sessions.id, [...input.skip]) : undefined;
  const now = ctx.clock.now();
  let budget = input.batchSize;

  // Deleted trees first (one index holds exactly them), then each project's expired ones.
  const deleted = await ctx.db
    .select({ id: sessions.id, organizationId: sessions.organizationId, projectId: sessions.projectId })
    .from(sessions)
    .where(and(isNotNull(sessions.deletedAt), isNull(sessions.parentSessionId), noUnsettledRun, notSkipped))
    .orderBy(asc(sessions.deletedAt))
    .limit(budget + 1);
  const byProject = new Map<string, Candidate[]>();
  for (const row of deleted.slice(0, budget)) byProject.set(row.projectId, [...(byProject.get(row.projectId) ?? []), { ...row, cutoff: null }]);
  if (deleted.length > budget) result.more = true;
  for (const candidates of byProject.values()) {
    const purged = await purgeTrees(ctx, candidates);
    result.purged += purged.trees;
    result.sessions += purged.sessions;
    result.kept.push(...purged.kept);
    budget -= candidates.length;
  }

  const projectRows = await ctx.db
    .select({
      id: projects.id,
      organizationId: projects.organizationId,
      sessionRetentionMinutes: projects.sessionRetentionMinutes,
      eventRetentionMinutes: projects.eventRetentionMinutes,
    })
    .from(projects)
    .orderBy(asc(projects.id));
  for (const project of projectRows) {
    const window = effectiveRetention(project, input.installation).sessionsMinutes;
    if (window === null) continue;
    if (budget <= 0) {
      result.more = true;
      break;
    }
    const cutoff = new Date(now.getTime() - window * 60_000);
    // The index on (project_id, last_activity_at) gives the oldest first; trees with a run in flight are filtered here and rechecked under lock.
    const rows = await ctx.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(and(eq(sessions.projectId, project.id), lt(sessions.lastActivityAt, cutoff), isNull(sessions.parentSessionId), noUnsettledRun, notSkipped))
      .orderBy(asc(sessions.lastActivityAt))
      .limit(budget + 1);
    if (rows.length === 0) continue;
    if (rows.length > budget) result.more = true;
    const candidates = rows.slice(0, budget).map((row) => ({ id: row.id, organizationId: project.organizationId, projectId: project.id, cutoff }));
    const purged = await purgeTrees(ctx, candidates);
    result.purged += purged.trees;
    result.sessions += purged.sessions;
    result.kept.push(...purged.kept);
    budget -= candidates.length;
  }
  // Work is left only if this call made progress: trees a delegated session's run keeps (never
  // settling, say) must not keep the sweeper from waiting for its interval.
  result.more = result.more && result.purged > 0;
  if (result.purged > 0) ctx.logger.info('retention: expired sessions deleted', { trees: result.purged, sessions: result.sessions, more: result.more });
  return result;
}

/** The root session has no unsettled run (its delegated sessions' runs are checked under lock). */
const noUnsettledRun = sql`not exists (select 1 from ${runs} where ${runs.sessionId} = ${sessions.id} and ${runs.settledAt} is null)`;

/** One project's candidate trees in one transaction: lock, recheck, record their objects, delete. */
async function purgeTrees(ctx: ServiceContext, candidates: Candidate[]): Promise<{ trees: number; sessions: number; kept: string[] }> {
  const { organizationId, projectId } = candidates[0]!;
  return withTransaction(ctx, async (tx) => {
    const { trees, sessionIds, kept } = await lockTrees(tx, candidates);
    if (sessionIds.length === 0) return { trees: 0, sessions: 0, kept };

    const threadIds = [
      ...(await tx.db.select({ id: sessions.threadId }).from(sessions).where(inArray(sessions.id, sessionIds))).map((row) => row.id),
      ...(
        await tx.db
          .select({ id: harnessOperationCalls.threadId })
          .from(harnessOperationCalls)
          .where(inArray(harnessOperationCalls.runId, tx.db.select({ id: runs.id }).from(runs).where(inArray(runs.sessionId, sessionIds))))
      ).map((row) => row.id),
    ];

    // The objects the rows name, for deletion after commit: each workspace's backup folder, each attachment's object.
    const backups = await tx.db
      .selectDistinctOn([workspaceBackups.workspaceSessionId, workspaceBackups.storageProviderId], {
        sessionId: workspaceBackups.workspaceSessionId,
        storageProviderId: workspaceBackups.storageProviderId,
        archiveKey: workspaceBackups.archiveKey,
      })
      .from(workspaceBackups)
      .where(inArray(workspaceBackups.workspaceSessionId, sessionIds));
    const files = await tx.db
      .selectDistinct({ storageProviderId: attachments.storageProviderId, objectKey: attachments.objectKey })
      .from(attachments)
      .where(inArray(attachments.sessionId, sessionIds));
    const objects = [
      ...backups.flatMap((backup) => {
        const folder = backupFolder(backup.archiveKey, backup.sessionId);
        return folder ? [{ organizationId, projectId, storageProviderId: backup.storageProviderId, kind: 'prefix' as const, objectKey: folder }] : [];
      }),
      ...files.map((file) => ({ organizationId, projectId, storageProviderId: file.storageProviderId, kind: 'run_file' as const, objectKey: file.objectKey })),
    ];
    if (objects.length > 0) await tx.db.insert(retentionObjectDeletions).values(objects.map((object) => ({ ...object, createdAt: tx.clock.now() })));

    // Event counters of the aggregates that go (their events stay until the events window), found by subquery: no id lists travel.
    const runsOfTrees = tx.db.select({ id: runs.id }).from(runs).where(inArray(runs.sessionId, sessionIds));
    const aggregates: Array<[string, SQL]> = [
      ['session', inArray(aggregateEventCounters.aggregateId, sessionIds)],
      ['run', inArray(aggregateEventCounters.aggregateId, runsOfTrees)],
      [
        'tool_call',
        inArray(aggregateEventCounters.aggregateId, tx.db.select({ id: toolCalls.id }).from(toolCalls).where(inArray(toolCalls.runId, runsOfTrees))),
      ],
      [
        'approval',
        inArray(aggregateEventCounters.aggregateId, tx.db.select({ id: approvals.id }).from(approvals).where(inArray(approvals.runId, runsOfTrees))),
      ],
      ['message', inArray(aggregateEventCounters.aggregateId, tx.db.select({ id: messages.id }).from(messages).where(inArray(messages.threadId, threadIds)))],
    ];
    for (const [aggregateType, ids] of aggregates) {
      await tx.db
        .delete(aggregateEventCounters)
        .where(and(eq(aggregateEventCounters.projectId, projectId), eq(aggregateEventCounters.aggregateType, aggregateType), ids));
    }

    // Sessions first (their runs, tool calls, approvals, sandboxes, attachments, backups... cascade), then their threads (messages).
    await tx.db.delete(sessions).where(and(eq(sessions.projectId, projectId), inArray(sessions.id, sessionIds)));
    await tx.db.delete(threads).where(and(eq(threads.projectId, projectId), inArray(threads.id, threadIds)));
    return { trees, sessions: sessionIds.length, kept };
  });
}

/**
 * Locks the candidates' whole trees (`SKIP LOCKED`) and rechecks them under the lock, in four
 * statements whatever their number: the ids of the sessions of the trees that may go. A tree
 * stays when a request holds one of its sessions, a run of it is unsettled, or (for an expiry)
 * one of its sessions was active after the cutoff.
 */
async function lockTrees(tx: ServiceContext, candidates: Candidate[]): Promise<{ trees: number; sessionIds: string[]; kept: string[] }> {
  const projectId = candidates[0]!.projectId;
  const roots = candidates.map((candidate) => candidate.id);
  const members = rowsOf<{ root: string; id: string }>(
    await tx.db.execute(sql`
      with recursive tree(root, id) as (
        select id, id from sessions where ${and(eq(sessions.projectId, projectId), inArray(sessions.id, roots))}
        union select tree.root, s.id from sessions s join tree on s.parent_session_id = tree.id
      )
      select root, id from tree
    `),
  );
  const treeOf = new Map<string, string[]>();
  for (const member of members) treeOf.set(member.root, [...(treeOf.get(member.root) ?? []), member.id]);
  const all = members.map((member) => member.id);
  if (all.length === 0) return { trees: 0, sessionIds: [], kept: [] };
  const locked = new Map(
    (
      await tx.db
        .select({ id: sessions.id, lastActivityAt: sessions.lastActivityAt, deletedAt: sessions.deletedAt })
        .from(sessions)
        .where(inArray(sessions.id, all))
        .for('update', { skipLocked: true })
    ).map((row) => [row.id, row]),
  );
  const busy = new Set(
    (
      await tx.db
        .selectDistinct({ sessionId: runs.sessionId })
        .from(runs)
        .where(and(inArray(runs.sessionId, all), isNull(runs.settledAt)))
    ).map((row) => row.sessionId),
  );
  const sessionIds: string[] = [];
  const kept: string[] = [];
  let trees = 0;
  for (const candidate of candidates) {
    const tree = treeOf.get(candidate.id) ?? [];
    const rows = tree.map((id) => locked.get(id));
    if (tree.length === 0) continue;
    if (rows.some((row) => row === undefined) || tree.some((id) => busy.has(id))) {
      kept.push(candidate.id);
      continue;
    }
    const root = locked.get(candidate.id)!;
    const expired = candidate.cutoff === null ? root.deletedAt !== null : rows.every((row) => row!.lastActivityAt < candidate.cutoff!);
    if (!expired) continue;
    trees += 1;
    sessionIds.push(...tree);
  }
  return { trees, sessionIds, kept };
}

/** `<root>workspace-backups/<sessionId>/` of one of the workspace's archive keys (null if it is not ours). */
function backupFolder(archiveKey: string, sessionId: string): string | null {
  const marker = `workspace-backups/${sessionId}/`;
  const at = archiveKey.indexOf(marker);
  return at === -1 ? null : archiveKey.slice(0, at + marker.length);
}
