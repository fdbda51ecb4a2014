import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { WithSubqueryWithSelection } from 'drizzle-orm/pg-core';
import { insertedRow } from '../../../db/inserted-row.ts';
import { sessions, threads } from '../../../db/schema/index.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { copySkillBindings } from '../../configuration/skills/index.ts';
import type { SessionRow } from './public.ts';
import type { StoredBudget } from '../../../domain/usage/budget.ts';
import type { AttachedMemoryStore } from '../../../domain/memory/index.ts';

/**
 * The rows every new session starts with, in the caller's transaction: its thread, the session
 * pinned to `version` (`queued` when a first turn follows, else `idle`), and that version's Skill
 * bindings copied for good, and the memory stores it attached. `beforeSession` runs between the thread and the session (a fork
 * copies its transcript into the thread there). With `held`, every row is built here and its
 * insert held for the transaction's next event append (`holdWrite`): no statement of its own.
 */
export async function openSession(
  tx: ServiceContext,
  input: {
    actor: Actor;
    version: { id: string; agentId: string; config: Record<string, unknown> };
    title: string | null | undefined;
    /** The session's budget, stored (none when omitted). */
    budget?: StoredBudget;
    firstTurn: boolean;
    now: Date;
    /** The memory stores it attaches for its life (a fork passes its source's). */
    memoryStores?: AttachedMemoryStore[];
    id?: string;
    forkedFrom?: { sessionId: string; runId: string };
    beforeSession?: (threadId: string) => Promise<void>;
    /**
     * The id of the first run, queued next in the same transaction (`queueRun`'s `firstRunId`):
     * the session names it as its latest run, and the new thread keeps sequence 1 for its input
     * message, so neither row is written twice.
     */
    firstRunId?: string;
    /** Hold the inserts for the caller's event append (not with `beforeSession`, which writes into the thread first). */
    held?: boolean;
  },
): Promise<SessionRow> {
  const { actor, version, now, firstRunId } = input;
  if (firstRunId !== undefined && (!input.firstTurn || input.beforeSession)) throw new Error('a first run needs a first turn and an empty thread');
  if (input.held) {
    if (input.beforeSession) throw new Error('a held session cannot write into its thread first');
    const threadId = randomUUID();
    await holdWrite(
      tx,
      tx.db.insert(threads).values(
        insertedRow(threads, {
          id: threadId,
          organizationId: actor.organizationId,
          projectId: actor.projectId,
          lastMessageSequence: firstRunId === undefined ? 0 : 1,
          createdAt: now,
        }),
      ),
    );
    const session = insertedRow(sessions, { ...sessionValues(input), threadId, id: input.id ?? randomUUID() });
    await holdWrite(tx, tx.db.insert(sessions).values(session));
    await copySkillBindings(tx, {
      sessionId: session.id,
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      config: version.config,
      held: true,
    });
    return session;
  }
  const threadInsert = tx.db
    .insert(threads)
    .values({
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      createdAt: now,
      ...(firstRunId === undefined ? {} : { lastMessageSequence: 1 }),
    })
    .returning({ id: threads.id });
  // Without a step between them, the thread and the session are one statement (the thread a CTE).
  let threadId: string | SQL;
  let thread: WithSubqueryWithSelection<{ id: typeof threads.id }, 'new_thread'> | null = null;
  if (input.beforeSession) {
    const [inserted] = await threadInsert;
    threadId = inserted!.id;
    await input.beforeSession(threadId);
  } else {
    thread = tx.db.$with('new_thread').as(threadInsert);
    threadId = sql`(select ${thread.id} from ${thread})`;
  }
  const [session] = await (thread ? tx.db.with(thread) : tx.db)
    .insert(sessions)
    .values({ ...sessionValues(input), threadId, ...(input.id ? { id: input.id } : {}) })
    .returning();
  await copySkillBindings(tx, { sessionId: session!.id, organizationId: actor.organizationId, projectId: actor.projectId, config: version.config });
  return session!;
}

/** The session row's values but its id and thread, shared by the held and the sent insert. */
function sessionValues(input: Parameters<typeof openSession>[1]): Omit<typeof sessions.$inferInsert, 'id' | 'threadId'> {
  const { actor, version, now } = input;
  return {
    organizationId: actor.organizationId,
    projectId: actor.projectId,
    agentId: version.agentId,
    agentVersionId: version.id,
    title: input.title ? input.title : null,
    budgetMaxCostNanos: input.budget?.maxCostNanos ?? null,
    budgetMaxTokens: input.budget?.maxTokens ?? null,
    memoryStores: input.memoryStores ?? [],
    status: input.firstTurn ? 'queued' : 'idle',
    latestRunId: input.firstRunId ?? null,
    createdByPrincipalId: actor.principalId,
    forkedFromSessionId: input.forkedFrom?.sessionId ?? null,
    forkedFromRunId: input.forkedFrom?.runId ?? null,
    createdAt: now,
    lastActivityAt: now,
  };
}
