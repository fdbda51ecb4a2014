import { and, asc, eq, gt } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { agentVersions, messages, runs, sessions } from '../../../db/schema/index.ts';
import { loadSessionSkills, type SessionSkill } from './session-skills.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { SessionRow } from './load-session.ts';
import type { MessageRow, RunRow } from './public.ts';

type AgentVersionRow = typeof agentVersions.$inferSelect;

export type RunVersion = {
  run: RunRow;
  session: SessionRow;
  /** The session's pinned version; `config` is the stored, parsed and defaulted config. */
  agentVersion: AgentVersionRow;
};

export type RunContext = RunVersion & {
  /** The Skill versions the session bound at creation, in binding order, revoked ones included. */
  skills: SessionSkill[];
  /**
   * The thread (earlier runs included) in sequence order, stored content unredacted: all of it, or
   * what follows `afterSequence` (what the latest context compaction's summary does not cover).
   */
  messages: MessageRow[];
};

/**
 * A run with its session and pinned agent version, in one statement, read by run id (the worker
 * acts for no principal, so there is no project scope to apply). 404 when the run is gone, for
 * example after its project was deleted.
 */
export async function loadRunVersion(db: Executor, runId: string): Promise<RunVersion> {
  const [row] = await db
    .select({ run: runs, session: sessions, agentVersion: agentVersions })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    .innerJoin(agentVersions, eq(agentVersions.id, runs.agentVersionId))
    .where(eq(runs.id, runId));
  if (!row) throw new NotFoundError('No run with that id');
  return row;
}

/**
 * Everything the run workflow's model turns need: the run, its session and version, the
 * session's bound Skill versions and the thread (after `afterSequence`). The transcript is raw: never return it to a
 * client.
 */
export async function loadRunContext(db: Executor, runId: string, options: { afterSequence?: number } = {}): Promise<RunContext> {
  const base = await loadRunVersion(db, runId);
  const skills = await loadSessionSkills(db, base.session.id);
  const thread = await db
    .select()
    .from(messages)
    .where(and(eq(messages.threadId, base.run.threadId), gt(messages.sequence, options.afterSequence ?? 0)))
    .orderBy(asc(messages.sequence));
  return { ...base, skills, messages: thread };
}
