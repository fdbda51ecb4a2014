import { and, eq } from 'drizzle-orm';
import { scheduleFirings } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { loadSchedule } from './load.ts';
import { toScheduleFiringResponse, type PublicScheduleFiring } from './public.ts';

/**
 * A schedule's firings, newest scheduled time first (`GET /schedules/{id}/firings`). Keyset
 * paging over `(scheduledAt, id)`.
 */
export async function listScheduleFirings({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { scheduleId: string; limit: number; cursor?: string | undefined };
}): Promise<Page<PublicScheduleFiring>> {
  const actor = requireActor(ctx);
  const schedule = await loadSchedule(ctx, { projectId: actor.projectId, scheduleId: input.scheduleId });
  // keysetPage names its timestamp `createdAt`; here the sort key is the scheduled time.
  const page = keysetPage({ createdAt: scheduleFirings.scheduledAt, id: scheduleFirings.id }, input.cursor, 'desc');
  const rows = await ctx.db
    .select()
    .from(scheduleFirings)
    .where(and(eq(scheduleFirings.projectId, actor.projectId), eq(scheduleFirings.scheduleId, schedule.id), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(
    rows.map((row) => ({ createdAt: row.scheduledAt, id: row.id, row })),
    input.limit,
    (entry) => toScheduleFiringResponse(entry.row),
  );
}
