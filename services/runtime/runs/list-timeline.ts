import type * as v from 'valibot';
import type { TimelinePageShape } from '../../../domain/public-shapes/runs.ts';
import { and, eq } from 'drizzle-orm';
import { modelInvocations } from '../../../db/schema/index.ts';
import { buildRunTimeline } from '../../../domain/sessions/timeline.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findRun } from './load.ts';

export type TimelinePage = v.InferOutput<typeof TimelinePageShape>;

/**
 * A page of the run's timing waterfall (`GET /runs/{id}/timeline`), derived from the run and its
 * model invocations (domain/sessions/timeline.ts). The cursor is the numeric `entrySequence`
 * of the last entry seen (spec 2 common rule 5); `nextCursor` is that number as a string.
 */
export async function listRunTimeline({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; limit: number; afterEntrySequence: number };
}): Promise<TimelinePage> {
  const run = await findRun(ctx, input.runId);
  const invocations = await ctx.db
    .select()
    .from(modelInvocations)
    .where(and(eq(modelInvocations.runId, run.id), eq(modelInvocations.projectId, run.projectId)));
  const rest = buildRunTimeline(run, invocations).filter((entry) => entry.entrySequence > input.afterEntrySequence);
  const data = rest.slice(0, input.limit);
  const last = data.at(-1);
  return { data, pageInfo: { nextCursor: rest.length > input.limit && last ? String(last.entrySequence) : null } };
}
