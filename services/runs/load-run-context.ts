import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { agentVersions, messages, runs, sessions, sessionSkillBindings } from '../../db/schema/index.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { SessionRow } from '../sessions/public.ts';
import type { MessageRow, RunRow } from './public.ts';

type AgentVersionRow = typeof agentVersions.$inferSelect;
type SkillBindingRow = typeof sessionSkillBindings.$inferSelect;

export type RunContext = {
  run: RunRow;
  session: SessionRow;
  /** The session's pinned version; `config` is the stored, parsed and defaulted config. */
  agentVersion: AgentVersionRow;
  /** The Skill versions the session bound at creation, in binding order. */
  skillBindings: SkillBindingRow[];
  /** The whole thread (earlier runs included) in sequence order, stored content unredacted. */
  messages: MessageRow[];
};

/**
 * Everything the run workflow's activities need to drive one run, read by run id (the worker
 * acts for no principal, so there is no project scope to apply). 404 when the run is gone, for
 * example after its project was deleted. The transcript is raw: never return it to a client.
 */
export async function loadRunContext(db: Executor, runId: string): Promise<RunContext> {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!run) throw new NotFoundError('No run with that id');
  const [session] = await db.select().from(sessions).where(eq(sessions.id, run.sessionId));
  const [agentVersion] = await db.select().from(agentVersions).where(eq(agentVersions.id, run.agentVersionId));
  if (!session || !agentVersion) throw new NotFoundError('The run has no session or agent version');
  const skillBindings = await db.select().from(sessionSkillBindings).where(eq(sessionSkillBindings.sessionId, session.id)).orderBy(asc(sessionSkillBindings.position));
  const thread = await db.select().from(messages).where(eq(messages.threadId, run.threadId)).orderBy(asc(messages.sequence));
  return { run, session, agentVersion, skillBindings, messages: thread };
}
