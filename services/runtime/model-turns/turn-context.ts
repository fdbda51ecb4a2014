import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { agentVersions, modelPresets, modelProviders, runs, sessions, threads } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ThreadContext } from '../compaction/index.ts';
import { turnBudgetColumns, type ProjectPreset, type TurnBudgetRead } from '../model-invocations/index.ts';
import type { MessageRow, RunContext, SessionSkill } from '../runs/index.ts';

type SummaryJson = { number: number; summary: string; throughSequence: number } | null;
type MessageJson = Omit<MessageRow, 'createdAt'> & { createdAt: string };

/**
 * What a main-thread model turn reads before it begins, in one statement (begin.ts): the run, its
 * session and pinned version (`loadRunVersion`), the session's bound Skill versions in binding
 * order (`loadSessionSkills`), the thread's count of what the model last read and its latest
 * accepted compaction (`readThreadContext`), and the messages that compaction does not cover
 * (`loadRunContext`'s `afterSequence`), the lists as JSON, all from one snapshot; when it reserves
 * the turn, also the run's budget and reservations (`turnBudgetColumns`) under the run's lock;
 * and the version's preset in the project with its provider (`resolveRunModel`'s read). Six
 * statements before, each a round trip; the transcript is raw: never return it to a client.
 */
export async function loadTurnContext(
  db: Executor,
  runId: string,
  /**
   * The turn to reserve: the run's budget and reservations are read too, with the run locked
   * (inside the transaction that reserves it) unless `lock` is false (the one-write begin, whose
   * reservation a unique ordinal guards instead).
   */
  reserving?: { turnId: string; now: Date; lock?: boolean },
): Promise<{ context: RunContext; thread: ThreadContext; budget: TurnBudgetRead | null; projectPreset: ProjectPreset | null }> {
  const latest = sql`(
    select c.number, c.summary, c.through_sequence from context_compactions c
    where c.thread_id = ${runs.threadId} and c.number is not null order by c.number desc limit 1)`;
  const budget = reserving ? turnBudgetColumns(runId, reserving.turnId, reserving.now) : { budget: sql<null>`null`, reservations: sql<null>`null` };
  const query = db
    .select({
      run: runs,
      session: sessions,
      agentVersion: agentVersions,
      contextTokens: threads.contextTokens,
      contextThroughSequence: threads.contextThroughSequence,
      summary: sql<SummaryJson>`(select json_build_object('number', l.number, 'summary', l.summary, 'throughSequence', l.through_sequence) from ${latest} l)`,
      skills: sql<SessionSkill[]>`(
        select coalesce(json_agg(json_build_object(
          'skillId', b.skill_id, 'skillVersionId', b.skill_version_id, 'version', v.version, 'name', v.name,
          'description', v.description, 'instructions', v.instructions, 'license', v.license,
          'compatibility', v.compatibility, 'metadata', v.metadata, 'allowedTools', v.allowed_tools, 'files', v.files,
          'contentHash', v.content_hash, 'status', v.status) order by b.position), '[]'::json)
        from session_skill_bindings b join skill_versions v on v.id = b.skill_version_id
        where b.session_id = ${runs.sessionId})`,
      messages: sql<MessageJson[]>`(
        select coalesce(json_agg(json_build_object(
          'id', m.id, 'organizationId', m.organization_id, 'projectId', m.project_id, 'threadId', m.thread_id,
          'runId', m.run_id, 'sequence', m.sequence, 'role', m.role, 'content', m.content, 'stepKey', m.step_key,
          'createdAt', m.created_at) order by m.sequence), '[]'::json)
        from messages m
        where m.thread_id = ${runs.threadId} and m.sequence > coalesce((select l.through_sequence from ${latest} l), 0))`,
      budget: budget.budget,
      reservations: budget.reservations,
      preset: modelPresets,
      provider: modelProviders,
    })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    .innerJoin(agentVersions, eq(agentVersions.id, runs.agentVersionId))
    .innerJoin(threads, eq(threads.id, runs.threadId))
    // The version's preset in the run's project (archived ones too), with its provider: resolveRunModel's read.
    .leftJoin(
      modelPresets,
      and(
        eq(modelPresets.organizationId, runs.organizationId),
        eq(modelPresets.projectId, runs.projectId),
        eq(modelPresets.key, sql`${agentVersions.config} ->> 'modelPreset'`),
      ),
    )
    .leftJoin(modelProviders, eq(modelProviders.id, modelPresets.providerId))
    .where(eq(runs.id, runId));
  const [row] = reserving && reserving.lock !== false ? await query.for('update', { of: runs }) : await query;
  if (!row) throw new NotFoundError('No run with that id');
  const tokens = Number(row.contextTokens);
  const through = Number(row.contextThroughSequence);
  const summary = row.summary;
  return {
    context: {
      run: row.run,
      session: row.session,
      agentVersion: row.agentVersion,
      skills: row.skills,
      messages: row.messages.map((message) => ({ ...message, createdAt: new Date(message.createdAt) })),
    },
    thread: {
      threadId: row.run.threadId,
      latest: summary ? { number: Number(summary.number), summary: summary.summary ?? '', throughSequence: Number(summary.throughSequence) } : null,
      counted: through > 0 && tokens > 0 ? { tokens, throughSequence: through } : null,
    },
    budget: row.budget && row.reservations ? { budget: row.budget, reservations: row.reservations } : null,
    projectPreset: row.preset && row.provider ? { preset: row.preset, provider: row.provider } : null,
  };
}
