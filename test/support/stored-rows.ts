import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.ts';
import { agents, messages, pendingTurns, productEvents, runs, sessions, toolCalls } from '../../db/schema/index.ts';

/** Rows of every table a refused request could have written to: equal before and after means nothing was written. */
export async function rowCounts(db: Database) {
  const of = async (table: PgTable) => (await db.select({ n: count() }).from(table))[0]!.n;
  return {
    agents: await of(agents),
    sessions: await of(sessions),
    runs: await of(runs),
    messages: await of(messages),
    pendingTurns: await of(pendingTurns),
    toolCalls: await of(toolCalls),
    events: await of(productEvents),
  };
}

/** `levels` objects nested in each other, as JSON text (JSON.stringify itself overflows the stack). */
export const deepJson = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

/** The run's `run.waiting_*` events, oldest first, with the tool calls each waits on (null: none named). */
export async function waitingEventsOf(db: Database, runId: string) {
  const rows = await db
    .select({ kind: productEvents.kind, payload: productEvents.publicPayload })
    .from(productEvents)
    .where(and(eq(productEvents.aggregateId, runId), inArray(productEvents.kind, ['run.waiting_for_tool', 'run.waiting_for_approval'])))
    .orderBy(asc(productEvents.projectPosition));
  return rows.map((row) => ({ kind: row.kind, toolCallIds: (row.payload.waitingOn as { toolCallIds: string[] } | undefined)?.toolCallIds ?? null }));
}
