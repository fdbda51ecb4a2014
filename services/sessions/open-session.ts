import { sessions, threads } from '../../db/schema/index.ts';
import type { Actor, ServiceContext } from '../service-context.ts';
import { copySkillBindings } from '../skills/copy-session-bindings.ts';
import type { SessionRow } from './public.ts';

/**
 * The rows every new session starts with, in the caller's transaction: its thread, the session
 * pinned to `version` (`queued` when a first turn follows, else `idle`), and that version's Skill
 * bindings copied for good. `beforeSession` runs between the thread and the session (a fork
 * copies its transcript into the thread there).
 */
export async function openSession(
  tx: ServiceContext,
  input: {
    actor: Actor;
    version: { id: string; agentId: string; config: Record<string, unknown> };
    title: string | null | undefined;
    firstTurn: boolean;
    now: Date;
    id?: string;
    forkedFrom?: { sessionId: string; runId: string };
    beforeSession?: (threadId: string) => Promise<void>;
    /**
     * The id of the first run, queued next in the same transaction (`queueRun`'s `firstRunId`):
     * the session names it as its latest run, and the new thread keeps sequence 1 for its input
     * message, so neither row is written twice.
     */
    firstRunId?: string;
  },
): Promise<SessionRow> {
  const { actor, version, now, firstRunId } = input;
  if (firstRunId !== undefined && (!input.firstTurn || input.beforeSession)) throw new Error('a first run needs a first turn and an empty thread');
  const [thread] = await tx.db
    .insert(threads)
    .values({ organizationId: actor.organizationId, projectId: actor.projectId, createdAt: now, ...(firstRunId === undefined ? {} : { lastMessageSequence: 1 }) })
    .returning();
  await input.beforeSession?.(thread!.id);
  const [session] = await tx.db
    .insert(sessions)
    .values({
      ...(input.id ? { id: input.id } : {}),
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      threadId: thread!.id,
      agentId: version.agentId,
      agentVersionId: version.id,
      title: input.title ? input.title : null,
      status: input.firstTurn ? 'queued' : 'idle',
      latestRunId: firstRunId ?? null,
      createdByPrincipalId: actor.principalId,
      forkedFromSessionId: input.forkedFrom?.sessionId ?? null,
      forkedFromRunId: input.forkedFrom?.runId ?? null,
      createdAt: now,
      lastActivityAt: now,
    })
    .returning();
  await copySkillBindings(tx, { sessionId: session!.id, organizationId: actor.organizationId, projectId: actor.projectId, config: version.config });
  return session!;
}
