import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf } from '../../../db/client.ts';
import { runs, workspaceBackups } from '../../../db/schema/index.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { acceptTurnFiles, ForkSessionInput, hasFirstTurn, turnText } from '../../../domain/sessions/inputs.ts';
import { PUBLIC_STORAGE_ONLY, uploadAttachments } from '../attachments/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import { findSession, type SessionRow } from '../runs/index.ts';
import { toRunResponse, type PublicRun } from '../runs/index.ts';
import { queueRun } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { copyBackupForFork, type CopiedBackup } from '../workspace-files/index.ts';
import { openSession } from './open-session.ts';
import { resolveAgentVersion } from './resolve-agent-version.ts';
import { latestWorkspaceBackup } from '../sandboxes/index.ts';
import { toSessionResponse, type PublicSession } from './public.ts';

export type ForkedSession = PublicSession & { run: PublicRun | null; forkedFrom: { sessionId: string; runId: string }; workspace: 'copied' | 'empty' };

/**
 * Forks a session (`POST /sessions/{id}/fork`): a new session whose thread starts with a copy of
 * the source's transcript through `fromRunId` (a settled run of the source), pinned to
 * `agentVersionId` (any version of a live agent of the project) or else the source's version,
 * with that version's Skill bindings copied as at creation. With a message or files its first
 * run is queued as at creation; without, it is idle. The source is only read. Its workspace is
 * a verified copy of the source's latest backup when `fromRunId` is the source's latest run, else
 * empty; the copy and any uploads happen before the transaction.
 */
export async function forkSession({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: ForkSessionInput & { sessionId: string; idempotencyKey: string | null };
}): Promise<ForkedSession> {
  const actor = requireActor(ctx);
  const { sessionId, idempotencyKey, ...fields } = input;
  const body = v.parse(ForkSessionInput, fields);
  const files = acceptTurnFiles(body.files);
  const source = await findSession({ ctx, input: { sessionId } });
  const fromRun = await settledRunOf(ctx, source, body.fromRunId);
  const versionId = body.agentVersionId ?? source.agentVersionId;
  const forkId = randomUUID();
  // A root session is its own workspace; a backup exists only after a sandboxed run.
  const hasBackup =
    source.latestRunId === fromRun.id &&
    !source.parentSessionId &&
    (await latestWorkspaceBackup(ctx, { projectId: source.projectId, workspaceSessionId: source.id })) !== null;
  // Before any upload or copy, the version is checked (the transaction checks it again, locked).
  if (files.length > 0 || hasBackup) await resolveAgentVersion(ctx, { agentVersionId: versionId, anyVersion: true });
  const uploaded =
    files.length === 0
      ? null
      : await uploadAttachments(ctx, {
          files,
          organizationId: actor.organizationId,
          projectId: actor.projectId,
          agentVersionId: versionId,
          keyring: deps.keyring,
          storagePolicy: deps.storagePolicy ?? PUBLIC_STORAGE_ONLY,
        });
  const backup: CopiedBackup | null = hasBackup
    ? await copyBackupForFork(ctx, {
        sourceSessionId: source.id,
        targetWorkspaceSessionId: forkId,
        keyring: deps.keyring,
        policy: deps.storagePolicy ?? PUBLIC_STORAGE_ONLY,
      })
    : null;

  return withTransaction(ctx, async (tx) => {
    const { version } = await resolveAgentVersion(tx, { agentVersionId: versionId, anyVersion: true });
    const now = tx.clock.now();
    const firstTurn = hasFirstTurn(body);
    const forkedFrom = { sessionId: source.id, runId: fromRun.id };
    let copied = 0;
    const session = await openSession(tx, {
      actor,
      version,
      title: body.title,
      // The source's limits (not its spend): a fork is no way around a session's budget.
      budget: { maxCostNanos: source.budgetMaxCostNanos, maxTokens: source.budgetMaxTokens },
      firstTurn,
      now,
      // The source's memory stores, as the source attached them: a fork remembers what it does.
      memoryStores: source.memoryStores,
      id: forkId,
      forkedFrom,
      beforeSession: async (threadId) => {
        copied = await copyTranscript(tx, { sourceThreadId: source.threadId, throughRunId: fromRun.id, threadId });
      },
    });
    if (backup) await tx.db.insert(workspaceBackups).values({ ...backup, createdAt: now });
    const queued = firstTurn ? await queueRun(tx, deps, { session, text: turnText({ message: body.initialMessage }), uploaded, idempotencyKey, now }) : null;
    const workspace = backup ? ('copied' as const) : ('empty' as const);
    await recordAudit(tx, {
      action: 'session.created',
      targetType: 'session',
      targetId: forkId,
      details: { agentId: version.agentId, agentVersionId: version.id, runId: queued?.run.id ?? null, forkedFrom, copiedMessages: copied, workspace },
    });
    await appendProductEvents(tx, {
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      events: [
        {
          aggregateType: 'session',
          aggregateId: forkId,
          kind: EVENT_KINDS.sessionCreated,
          publicPayload: {
            sessionId: forkId,
            threadId: session.threadId,
            agentId: version.agentId,
            agentVersionId: version.id,
            status: session.status,
            runId: queued?.run.id ?? null,
            forkedFrom,
            workspace,
          },
        },
        ...(queued?.events ?? []),
      ],
    });
    return { ...toSessionResponse(queued?.session ?? session), run: queued ? toRunResponse(queued.run) : null, forkedFrom, workspace };
  });
}

/** `fromRunId` must be a settled run of the source session: 400 when it is not one of its runs, 409 while unsettled. */
async function settledRunOf(ctx: ServiceContext, source: SessionRow, runId: string) {
  const [run] = await ctx.db
    .select({ id: runs.id, state: runs.state })
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.sessionId, source.id), eq(runs.projectId, source.projectId)));
  if (!run) throw new ValidationError('fromRunId must be a run of this session', { path: 'body.fromRunId' });
  if (!isSettled(run.state)) throw new ConflictError('A session can be forked only from a settled run', { runId: run.id, state: run.state });
  return run;
}

/**
 * Copies the source thread's messages through the last one of `throughRunId` into `threadId`, in
 * one statement, keeping their sequence, role, content, run and step (runs of one session are
 * sequential, so these are exactly the messages of that run and the runs before it); the new
 * thread continues after them. Returns how many were copied.
 */
async function copyTranscript(tx: ServiceContext, input: { sourceThreadId: string; throughRunId: string; threadId: string }): Promise<number> {
  const result = await tx.db.execute(sql`
    with last as (
      select max(sequence) as sequence from messages where thread_id = ${input.sourceThreadId}::uuid and run_id = ${input.throughRunId}::uuid
    ),
    copied as (
      insert into messages (organization_id, project_id, thread_id, run_id, sequence, role, content, step_key, created_at)
      select m.organization_id, m.project_id, ${input.threadId}::uuid, m.run_id, m.sequence, m.role, m.content, m.step_key, m.created_at
      from messages m, last
      where m.thread_id = ${input.sourceThreadId}::uuid and m.sequence <= last.sequence
      returning sequence
    )
    update threads set last_message_sequence = coalesce((select max(sequence) from copied), 0)
    where id = ${input.threadId}::uuid
    returning (select count(*) from copied)::int as copied
  `);
  return Number(rowsOf<{ copied: number }>(result)[0]?.copied ?? 0);
}
