import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../../../db/client.ts';

/** The latest accepted summary of a thread: what the model reads in place of messages 1..`throughSequence`. */
export type ThreadSummary = { number: number; summary: string; throughSequence: number };

export type ThreadContext = {
  threadId: string;
  latest: ThreadSummary | null;
  /** The vendor's count of the model's last reading of the thread (or a compaction's estimate), through a message. */
  counted: { tokens: number; throughSequence: number } | null;
};

type Row = {
  thread_id: string;
  context_tokens: number;
  context_through_sequence: number;
  number: number | null;
  summary: string | null;
  through_sequence: number | null;
};

/**
 * What a model turn reads of a thread besides its messages, in one statement: the thread's count
 * of what the model last read, and the latest accepted compaction. By thread (a Harness
 * Operation's sub-loop) or by run (its session's thread).
 */
export async function readThreadContext(db: Executor, of: { threadId: string } | { runId: string }): Promise<ThreadContext> {
  const where = 'threadId' in of ? sql`t.id = ${of.threadId}::uuid` : sql`t.id = (select thread_id from runs where id = ${of.runId}::uuid)`;
  const [row] = rowsOf<Row>(
    await db.execute(sql`
      select t.id as thread_id, t.context_tokens, t.context_through_sequence, c.number, c.summary, c.through_sequence
      from threads t
      left join lateral (
        select number, summary, through_sequence from context_compactions
        where thread_id = t.id and number is not null order by number desc limit 1
      ) c on true
      where ${where}`),
  );
  if (!row) throw new Error('the thread of this turn does not exist');
  const tokens = Number(row.context_tokens);
  const through = Number(row.context_through_sequence);
  return {
    threadId: row.thread_id,
    latest: row.number === null ? null : { number: Number(row.number), summary: row.summary ?? '', throughSequence: Number(row.through_sequence) },
    counted: through > 0 && tokens > 0 ? { tokens, throughSequence: through } : null,
  };
}

/** How many compaction steps a run took (accepted or rejected: both count against `maxCompactionsPerRun`), and whether `stepKey` is one of them. */
export async function runCompactionSteps(db: Executor, runId: string, stepKey: string): Promise<{ used: number; stepTaken: boolean }> {
  const [row] = rowsOf<{ used: number; taken: boolean }>(
    await db.execute(sql`
      select count(*)::int as used, coalesce(bool_or(step_key = ${stepKey}), false) as taken
      from context_compactions where run_id = ${runId}::uuid`),
  );
  return { used: Number(row?.used ?? 0), stepTaken: row?.taken === true };
}
