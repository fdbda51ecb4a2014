import { Hono } from 'hono';
import * as v from 'valibot';
import { ListLimit } from '../../domain/pagination.ts';
import { RUN_STATES } from '../../domain/runs/states.ts';
import { CreateSessionInput, TurnInput } from '../../domain/sessions/inputs.ts';
import { createFollowUpRun } from '../../services/runs/create-follow-up.ts';
import { createSession } from '../../services/sessions/create.ts';
import { getSession } from '../../services/sessions/get.ts';
import { listSessions } from '../../services/sessions/list.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { turnTransaction } from './turn-transaction.ts';
import { idempotencyKeyOf, Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { MAX_TURN_BODY_BYTES } from '../../domain/attachments/file-input.ts';
import { PublicRunShape } from '../../domain/public-shapes/runs.ts';
import { CreatedSessionShape, SessionDetailShape, SessionPageShape } from '../../domain/public-shapes/sessions.ts';

const SessionParams = v.object({ projectId: Uuid, sessionId: Uuid });

/**
 * `GET /sessions` query: paging plus filters. `root=true` keeps only root sessions (no parent);
 * it cannot be combined with `parentSessionId`.
 */
const ListSessionsQuery = v.pipe(
  v.object({
    limit: ListLimit,
    cursor: v.optional(v.pipe(v.string(), v.maxLength(512, 'cursor is too long'))),
    agentId: v.optional(Uuid),
    status: v.optional(v.picklist(RUN_STATES, `status must be one of ${RUN_STATES.join(', ')}`)),
    parentSessionId: v.optional(Uuid),
    root: v.optional(v.pipe(v.picklist(['true', 'false'], 'root must be true or false'), v.transform((value) => value === 'true'))),
  }),
  v.check((query) => !(query.root === true && query.parentSessionId !== undefined), 'root=true cannot be combined with parentSessionId'),
);

/**
 * Sessions (spec 2 "Sessions, runs, files"): creating one needs `session:write` and
 * `run:create` (it queues the first run); a follow-up turn needs `run:create`; reads need
 * `session:read`. Session files come with attachments.
 */
export function sessionRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/projects/:projectId/sessions', route({ summary: 'List sessions with status and token counters', scopes: ['session:read'], query: ListSessionsQuery, responses: { 200: { description: 'A page of sessions', schema: SessionPageShape } } }), async (c) => {
      return c.json(await listSessions({ ctx: c.var.ctx, input: validQuery(c, ListSessionsQuery) }));
    })
    .post('/projects/:projectId/sessions', route({ summary: 'Create a session and its first run', scopes: ['session:write', 'run:create'], body: CreateSessionInput, responses: { 201: { description: 'The session with its `run`', schema: CreatedSessionShape } }, transaction: turnTransaction }), async (c) => {
      const body = await validBody(c, CreateSessionInput, { maxBytes: MAX_TURN_BODY_BYTES });
      const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
      return c.json(await createSession({ ctx: c.var.ctx, deps, input: { ...body, idempotencyKey } }), 201);
    })
    .get('/projects/:projectId/sessions/:sessionId', route({ summary: 'Session detail', scopes: ['session:read'], params: SessionParams, responses: { 200: { description: 'The session', schema: SessionDetailShape } } }), async (c) => {
      const { sessionId } = validParams(c, SessionParams);
      return c.json(await getSession({ ctx: c.var.ctx, input: { sessionId } }));
    })
    .post('/projects/:projectId/sessions/:sessionId/runs', route({ summary: 'Queue a follow-up run', scopes: ['run:create'], params: SessionParams, body: TurnInput, responses: { 202: { description: 'The run', schema: PublicRunShape } }, transaction: turnTransaction }), async (c) => {
      const { sessionId } = validParams(c, SessionParams);
      const body = await validBody(c, TurnInput, { maxBytes: MAX_TURN_BODY_BYTES });
      const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
      return c.json(await createFollowUpRun({ ctx: c.var.ctx, deps, input: { ...body, sessionId, idempotencyKey } }), 202);
    });
}
