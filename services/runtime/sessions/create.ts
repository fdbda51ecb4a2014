import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { storedSessionBudget } from '../../../domain/usage/budget.ts';
import { acceptTurnFiles, CreateSessionInput, hasFirstTurn, turnText } from '../../../domain/sessions/inputs.ts';
import { PUBLIC_STORAGE_ONLY, uploadAttachments } from '../attachments/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEventsReading, holdProductEvents } from '../../kernel/events/index.ts';
import { holdCheck } from '../../kernel/pending-writes.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toRunResponse, type PublicRun } from '../runs/index.ts';
import { queueRun } from '../runs/index.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toSessionResponse, type PublicSession } from './public.ts';
import { openSession } from './open-session.ts';
import { resolveAgentVersion } from './resolve-agent-version.ts';
import { attachSessionMemoryStores } from '../../configuration/memory-stores/index.ts';

/**
 * Creates a session and its first run in one transaction (spec 1 "Run", first row): thread,
 * session pinned to the agent's latest version, that version's Skill bindings copied for good, the
 * memory stores it names attached (docs/decisions/memory-stores.md),
 * the initial user message, the `queued` run, the product events and the audit entry. Files are
 * checked against the agent's latest version and uploaded before the transaction opens, so it
 * makes no network call. Without files, every row is built here and written by the events' one
 * statement, which also counts the project's unsettled runs for the quota (the throw over it
 * rolls everything back). The runtime is woken only after the commit, so a rolled-back request
 * starts nothing. Without a message or files the session is created idle: no run, no workflow,
 * until its first `POST /sessions/{id}/runs`.
 */
export async function createSession({
  ctx,
  deps,
  input,
  writesLast = false,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: CreateSessionInput & { idempotencyKey: string | null };
  /**
   * The caller's transaction writes and reads nothing more (POST /sessions: only the idempotency
   * record follows): the rows and events are held for its last statement (`holdProductEvents`),
   * the quota checked there (`holdCheck`).
   */
  writesLast?: boolean;
}): Promise<PublicSession & { run: PublicRun | null }> {
  const actor = requireActor(ctx);
  const { idempotencyKey, ...fields } = input;
  const body = v.parse(CreateSessionInput, fields);
  const firstTurn = hasFirstTurn(body);
  const text = turnText({ message: body.initialMessage });
  const files = acceptTurnFiles(body.files);
  // The version is resolved again inside the transaction; a newer one published in between is
  // checked against the files there.
  const uploaded =
    files.length === 0
      ? null
      : await uploadAttachments(ctx, {
          files,
          organizationId: actor.organizationId,
          projectId: actor.projectId,
          agentVersionId: (await resolveAgentVersion(ctx, body)).version.id,
          keyring: deps.keyring,
          storagePolicy: deps.storagePolicy ?? PUBLIC_STORAGE_ONLY,
        });
  return withTransaction(ctx, async (tx) => {
    const { agent, version } = await resolveAgentVersion(tx, body);
    const now = tx.clock.now();
    // The first run's id is chosen here, so the session and its thread are written once.
    const firstRunId = firstTurn ? randomUUID() : undefined;
    // Files are confirmed and recorded by statements of their own, which need the rows written.
    const held = uploaded === null;
    const session = await openSession(tx, {
      held,
      actor,
      version,
      title: body.title,
      budget: storedSessionBudget(body.budget),
      memoryStores: await attachSessionMemoryStores(tx, actor, body.memoryStores ?? []),
      firstTurn,
      now,
      ...(firstRunId ? { firstRunId } : {}),
    });
    const queued = firstRunId ? await queueRun(tx, deps, { session, text, uploaded, idempotencyKey, now, firstRunId, held }) : null;
    await recordAudit(tx, {
      action: 'session.created',
      targetType: 'session',
      targetId: session.id,
      details: { agentId: agent.id, agentVersionId: version.id, runId: queued?.run.id ?? null },
    });
    const events = {
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      events: [
        {
          aggregateType: 'session',
          aggregateId: session.id,
          kind: EVENT_KINDS.sessionCreated,
          publicPayload: {
            sessionId: session.id,
            threadId: session.threadId,
            agentId: agent.id,
            agentVersionId: version.id,
            status: session.status,
            runId: queued?.run.id ?? null,
          },
        },
        ...(queued?.events ?? []),
      ],
    };
    const quota = queued?.heldQuota;
    if (held && writesLast) {
      holdProductEvents(tx, events);
      if (quota) holdCheck(tx, quota.probe, (value) => quota.check(value === null ? null : Number(value)));
    } else {
      const appended = await appendProductEventsReading<number>(tx, events, quota?.probe ?? null);
      quota?.check(appended.probe);
    }
    return queued ? { ...toSessionResponse(queued.session), run: toRunResponse(queued.run) } : { ...toSessionResponse(session), run: null };
  });
}
