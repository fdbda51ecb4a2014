import { and, eq, isNull } from 'drizzle-orm';
import { schedules } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ScheduleDeps } from '../../kernel/schedule-backend.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withFiringDetails } from './details.ts';
import { loadSchedule } from './load.ts';
import type { PublicSchedule } from './public.ts';

/**
 * The project's live schedules, newest first (`GET /schedules`), each with its next firing times
 * (from Temporal) and its last firings. Keyset paging over `(createdAt, id)`.
 */
export async function listSchedules({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: Pick<ScheduleDeps, 'scheduleBackend'>;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicSchedule>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: schedules.createdAt, id: schedules.id }, input.cursor, 'desc');
  const rows = await ctx.db
    .select()
    .from(schedules)
    .where(and(eq(schedules.projectId, actor.projectId), isNull(schedules.deletedAt), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const shown = await withFiringDetails(ctx, deps.scheduleBackend, rows.slice(0, input.limit));
  const byId = new Map(shown.map((schedule) => [schedule.id, schedule]));
  return toPage(rows, input.limit, (row) => byId.get(row.id)!);
}

/** One schedule with its next firing times and last firings (`GET /schedules/{id}`). */
export async function getSchedule({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: Pick<ScheduleDeps, 'scheduleBackend'>;
  input: { scheduleId: string };
}): Promise<PublicSchedule> {
  const actor = requireActor(ctx);
  const row = await loadSchedule(ctx, { projectId: actor.projectId, scheduleId: input.scheduleId });
  const [shown] = await withFiringDetails(ctx, deps.scheduleBackend, [row]);
  return shown!;
}
