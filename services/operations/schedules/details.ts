import { and, desc, eq, getTableColumns, inArray, lte, sql } from 'drizzle-orm';
import { scheduleFirings } from '../../../db/schema/index.ts';
import type { ScheduleBackend } from '../../kernel/schedule-backend.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { RECENT_FIRINGS_SHOWN, toScheduleResponse, type PublicSchedule, type ScheduleFiringRow, type ScheduleRow } from './public.ts';

/**
 * Rows with what their public shape adds: the last firings (Postgres) and the next firing times
 * (Temporal, when this process reaches it). Reads never fail on Temporal: a schedule it could
 * not describe in time shows no next firings, and the failure is logged.
 */
export async function withFiringDetails(ctx: ServiceContext, backend: ScheduleBackend | null, rows: readonly ScheduleRow[]): Promise<PublicSchedule[]> {
  if (rows.length === 0) return [];
  const [recent, next] = await Promise.all([recentFirings(ctx, rows), nextFirings(ctx, backend, rows)]);
  return rows.map((row) => toScheduleResponse(row, { nextFirings: next.get(row.id) ?? [], recentFirings: recent.get(row.id) ?? [] }));
}

async function recentFirings(ctx: ServiceContext, rows: readonly ScheduleRow[]): Promise<Map<string, ScheduleFiringRow[]>> {
  // The newest few of each schedule in one statement (the (schedule_id, scheduled_at) index).
  const ranked = ctx.db
    .select({
      ...getTableColumns(scheduleFirings),
      rank: sql<number>`row_number() over (partition by ${scheduleFirings.scheduleId} order by ${scheduleFirings.scheduledAt} desc, ${scheduleFirings.firedAt} desc)`.as(
        'rank',
      ),
    })
    .from(scheduleFirings)
    .where(
      and(
        eq(scheduleFirings.projectId, rows[0]!.projectId),
        inArray(
          scheduleFirings.scheduleId,
          rows.map((row) => row.id),
        ),
      ),
    )
    .as('ranked');
  const found = await ctx.db.select().from(ranked).where(lte(ranked.rank, RECENT_FIRINGS_SHOWN)).orderBy(desc(ranked.scheduledAt), desc(ranked.firedAt));
  const byId = new Map<string, ScheduleFiringRow[]>();
  for (const { rank: _rank, ...firing } of found) byId.set(firing.scheduleId, [...(byId.get(firing.scheduleId) ?? []), firing]);
  return byId;
}

async function nextFirings(ctx: ServiceContext, backend: ScheduleBackend | null, rows: readonly ScheduleRow[]): Promise<Map<string, Date[]>> {
  const live = rows.filter((row) => !row.paused).map((row) => row.id);
  if (!backend || live.length === 0) return new Map();
  try {
    return await backend.nextFirings(live);
  } catch (error) {
    ctx.logger.warn('could not read the next firing times from Temporal', { err: error, requestId: ctx.requestId });
    return new Map();
  }
}
