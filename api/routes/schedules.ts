import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import {
  ScheduleDeletedShape,
  ScheduleFiringPageShape,
  SchedulePageShape,
  ScheduleTriggeredShape,
  PublicScheduleShape,
} from '../../domain/public-shapes/schedules.ts';
import { CreateScheduleInput, UpdateScheduleInput } from '../../domain/schedules/inputs.ts';
import { createSchedule } from '../../services/operations/schedules/index.ts';
import { deleteSchedule } from '../../services/operations/schedules/index.ts';
import { getSchedule, listSchedules } from '../../services/operations/schedules/index.ts';
import { listScheduleFirings } from '../../services/operations/schedules/index.ts';
import type { ScheduleWriteDeps } from '../../services/operations/schedules/index.ts';
import { setSchedulePaused } from '../../services/operations/schedules/index.ts';
import { triggerSchedule } from '../../services/operations/schedules/index.ts';
import { updateSchedule } from '../../services/operations/schedules/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

const ScheduleParams = v.object({ projectId: Uuid, scheduleId: Uuid });

/**
 * Schedules (issue 35, docs/decisions/schedule-scopes.md): reads need `schedule:read`; creating,
 * changing and "run now" also what a firing needs (`run:create` here, and `session:write` for
 * new sessions, checked by the verbs with one rule: services/operations/schedules/check-references.ts
 * `assertMayFire`); each firing acts as the schedule's acting principal, who last changed what it
 * does. Pause, unpause and delete need `schedule:write`.
 */
export function scheduleRoutes(deps: AppDeps) {
  // The pool serves only the Temporal sync after the commit (services/operations/schedules/sync.ts); the
  // handlers' own reads and writes go through `c.var.ctx`.
  const scheduleDeps: ScheduleWriteDeps = {
    scheduleBackend: deps.scheduleBackend,
    database: deps.database.db,
    minIntervalSeconds: deps.settings.scheduleMinIntervalSeconds,
  };
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/schedules',
      route({
        summary: 'List schedules with their next firing times and last firings',
        scopes: ['schedule:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of schedules, newest first', schema: SchedulePageShape } },
      }),
      async (c) => {
        return c.json(await listSchedules({ ctx: c.var.ctx, deps: scheduleDeps, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/schedules',
      route({
        summary: 'Create a schedule: an agent that runs on a cron expression or an interval, in new sessions or as turns of one session',
        scopes: ['schedule:write', 'run:create'],
        body: CreateScheduleInput,
        responses: { 201: { description: 'The schedule (its next firings show once its Temporal Schedule exists)', schema: PublicScheduleShape } },
      }),
      async (c) => {
        const body = await validBody(c, CreateScheduleInput);
        return c.json(await createSchedule({ ctx: c.var.ctx, deps: scheduleDeps, input: body }), 201);
      },
    )
    .get(
      '/projects/:projectId/schedules/:scheduleId',
      route({
        summary: 'A schedule with its next firing times and last firings',
        scopes: ['schedule:read'],
        params: ScheduleParams,
        responses: { 200: { description: 'The schedule', schema: PublicScheduleShape } },
      }),
      async (c) => {
        const { scheduleId } = validParams(c, ScheduleParams);
        return c.json(await getSchedule({ ctx: c.var.ctx, deps: scheduleDeps, input: { scheduleId } }));
      },
    )
    .patch(
      '/projects/:projectId/schedules/:scheduleId',
      route({
        summary: 'Change a schedule (its Temporal Schedule follows)',
        scopes: ['schedule:write', 'run:create'],
        params: ScheduleParams,
        body: UpdateScheduleInput,
        responses: { 200: { description: 'The schedule', schema: PublicScheduleShape } },
      }),
      async (c) => {
        const { scheduleId } = validParams(c, ScheduleParams);
        const body = await validBody(c, UpdateScheduleInput);
        return c.json(await updateSchedule({ ctx: c.var.ctx, deps: scheduleDeps, input: { ...body, scheduleId } }));
      },
    )
    .delete(
      '/projects/:projectId/schedules/:scheduleId',
      route({
        summary: 'Delete a schedule and its Temporal Schedule',
        scopes: ['schedule:write'],
        params: ScheduleParams,
        responses: { 200: { description: '`{id, deleted: true}`', schema: ScheduleDeletedShape } },
      }),
      async (c) => {
        const { scheduleId } = validParams(c, ScheduleParams);
        return c.json(await deleteSchedule({ ctx: c.var.ctx, deps: scheduleDeps, input: { scheduleId } }));
      },
    )
    .post(
      '/projects/:projectId/schedules/:scheduleId/trigger',
      route({
        summary: 'Run a schedule now: one firing at once, even while paused or while another firing runs',
        scopes: ['schedule:write', 'run:create'],
        params: ScheduleParams,
        responses: {
          202: { description: '`{id, triggered: true}`: Temporal took the firing; it shows in `recentFirings` once it ran', schema: ScheduleTriggeredShape },
        },
        // Temporal is called before the audit entry and the stored answer are written.
        transaction: 'deferred',
      }),
      async (c) => {
        const { scheduleId } = validParams(c, ScheduleParams);
        return c.json(await triggerSchedule({ ctx: c.var.ctx, deps: scheduleDeps, input: { scheduleId } }), 202);
      },
    )
    .post(
      '/projects/:projectId/schedules/:scheduleId/pause',
      route({
        summary: 'Pause a schedule: no firings until it is unpaused (a running one finishes)',
        scopes: ['schedule:write'],
        params: ScheduleParams,
        responses: { 200: { description: 'The schedule', schema: PublicScheduleShape } },
      }),
      async (c) => {
        const { scheduleId } = validParams(c, ScheduleParams);
        return c.json(await setSchedulePaused({ ctx: c.var.ctx, deps: scheduleDeps, input: { scheduleId, paused: true } }));
      },
    )
    .post(
      '/projects/:projectId/schedules/:scheduleId/unpause',
      route({
        summary: 'Unpause a schedule: it fires again from its next time',
        scopes: ['schedule:write'],
        params: ScheduleParams,
        responses: { 200: { description: 'The schedule', schema: PublicScheduleShape } },
      }),
      async (c) => {
        const { scheduleId } = validParams(c, ScheduleParams);
        return c.json(await setSchedulePaused({ ctx: c.var.ctx, deps: scheduleDeps, input: { scheduleId, paused: false } }));
      },
    )
    .get(
      '/projects/:projectId/schedules/:scheduleId/firings',
      route({
        summary: "A schedule's firings, newest first",
        scopes: ['schedule:read'],
        params: ScheduleParams,
        query: ListQuery,
        responses: { 200: { description: 'A page of firings', schema: ScheduleFiringPageShape } },
      }),
      async (c) => {
        const { scheduleId } = validParams(c, ScheduleParams);
        return c.json(await listScheduleFirings({ ctx: c.var.ctx, input: { scheduleId, ...validQuery(c, ListQuery) } }));
      },
    );
}
