import { and, eq, isNull } from 'drizzle-orm';
import { schedules } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { ScheduleRow } from './public.ts';

/** A live schedule of the project, or 404 (a deleted one is gone); `lock` holds its row to the end of the transaction. */
export async function loadSchedule(ctx: ServiceContext, input: { projectId: string; scheduleId: string; lock?: boolean }): Promise<ScheduleRow> {
  const query = ctx.db
    .select()
    .from(schedules)
    .where(and(eq(schedules.id, input.scheduleId), eq(schedules.projectId, input.projectId), isNull(schedules.deletedAt)));
  const [row] = input.lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('No schedule with that id in this project');
  return row;
}
