import { Hono } from 'hono';
import * as v from 'valibot';
import { ListLimit, ListQuery } from '../../domain/pagination.ts';
import { TurnInput } from '../../domain/sessions/inputs.ts';
import { cancelRun } from '../../services/runtime/runs/index.ts';
import { getRun } from '../../services/runtime/runs/index.ts';
import { listPendingWork } from '../../services/runtime/runs/index.ts';
import { listRunMessages } from '../../services/runtime/runs/index.ts';
import { listRunTimeline } from '../../services/runtime/runs/index.ts';
import { resumeRun } from '../../services/runtime/runs/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { turnTransaction } from './turn-transaction.ts';
import { idempotencyKeyOf, Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { MAX_TURN_BODY_BYTES } from '../../domain/attachments/file-input.ts';
import { MessagePageShape, PublicRunShape, TimelinePageShape } from '../../domain/public-shapes/runs.ts';
import { PendingWorkShape } from '../../domain/public-shapes/tool-calls.ts';

const RunParams = v.object({ projectId: Uuid, runId: Uuid });

/** The run timeline pages by the numeric `entrySequence` of the last entry seen (spec 2 rule 5). */
const TimelineQuery = v.object({
  limit: ListLimit,
  cursor: v.optional(v.pipe(v.string(), v.regex(/^\d{1,9}$/, 'cursor must be the entrySequence of the last entry seen'), v.transform(Number)), '0'),
});

/**
 * Runs (spec 2 "Sessions, runs, files"): reads need `run:read`, resume `run:create`, cancel
 * `run:cancel`. Cancel takes no body; anything sent is ignored.
 */
export function runRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/runs/:runId',
      route({ summary: 'Read a run', scopes: ['run:read'], params: RunParams, responses: { 200: { description: 'The run', schema: PublicRunShape } } }),
      async (c) => {
        const { runId } = validParams(c, RunParams);
        return c.json(await getRun({ ctx: c.var.ctx, input: { runId } }));
      },
    )
    .post(
      '/projects/:projectId/runs/:runId/resume',
      route({
        summary: "Resume a settled run: a new run on that run's session",
        scopes: ['run:create'],
        params: RunParams,
        body: TurnInput,
        responses: { 202: { description: 'The new run', schema: PublicRunShape } },
        transaction: turnTransaction,
      }),
      async (c) => {
        const { runId } = validParams(c, RunParams);
        const body = await validBody(c, TurnInput, { maxBytes: MAX_TURN_BODY_BYTES });
        const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
        return c.json(await resumeRun({ ctx: c.var.ctx, deps, input: { ...body, runId, idempotencyKey } }), 202);
      },
    )
    .post(
      '/projects/:projectId/runs/:runId/cancel',
      route({
        summary: 'Request cancellation (asynchronous)',
        scopes: ['run:cancel'],
        params: RunParams,
        responses: { 202: { description: 'The run as it is now', schema: PublicRunShape } },
      }),
      async (c) => {
        const { runId } = validParams(c, RunParams);
        return c.json(await cancelRun({ ctx: c.var.ctx, deps, input: { runId } }), 202);
      },
    )
    .get(
      '/projects/:projectId/runs/:runId/messages',
      route({
        summary: "Page through a run's public messages",
        scopes: ['run:read'],
        params: RunParams,
        query: ListQuery,
        responses: { 200: { description: 'A page of messages', schema: MessagePageShape } },
      }),
      async (c) => {
        const { runId } = validParams(c, RunParams);
        return c.json(await listRunMessages({ ctx: c.var.ctx, input: { runId, ...validQuery(c, ListQuery) } }));
      },
    )
    .get(
      '/projects/:projectId/runs/:runId/timeline',
      route({
        summary: "Page through a run's timing waterfall",
        scopes: ['run:read'],
        params: RunParams,
        query: TimelineQuery,
        responses: { 200: { description: 'A page of timeline entries', schema: TimelinePageShape } },
      }),
      async (c) => {
        const { runId } = validParams(c, RunParams);
        const { limit, cursor } = validQuery(c, TimelineQuery);
        return c.json(await listRunTimeline({ ctx: c.var.ctx, input: { runId, limit, afterEntrySequence: cursor } }));
      },
    )
    .get(
      '/projects/:projectId/pending-work',
      route({
        summary: 'Unresolved caller tool calls and approvals of the project',
        scopes: ['run:read'],
        responses: { 200: { description: 'The pending work', schema: PendingWorkShape } },
      }),
      async (c) => {
        return c.json(await listPendingWork({ ctx: c.var.ctx }));
      },
    );
}
