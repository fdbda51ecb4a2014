import { Hono } from 'hono';
import * as v from 'valibot';
import { ListLimit } from '../../domain/pagination.ts';
import { SESSION_STATUSES } from '../../domain/runs/states.ts';
import { CreateSessionInput, FollowUpInput, ForkSessionInput, UpdateSessionInput } from '../../domain/sessions/inputs.ts';
import { createFollowUpRun } from '../../services/runtime/runs/index.ts';
import { withdrawPendingTurn } from '../../services/runtime/runs/index.ts';
import { createSession } from '../../services/runtime/sessions/index.ts';
import { forkSession } from '../../services/runtime/sessions/index.ts';
import { updateSession } from '../../services/runtime/sessions/index.ts';
import { archiveSession, deleteSession } from '../../services/runtime/sessions/index.ts';
import { getSession } from '../../services/runtime/sessions/index.ts';
import { listSessions } from '../../services/runtime/sessions/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { turnTransaction } from './turn-transaction.ts';
import { idempotencyKeyOf, Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { MAX_TURN_BODY_BYTES } from '../../domain/attachments/file-input.ts';
import {
  CreatedSessionShape,
  FollowUpAnswerShape,
  ForkedSessionShape,
  PendingTurnWithdrawnShape,
  PublicSessionListItemShape,
  SessionDeletedShape,
  SessionDetailShape,
  SessionPageShape,
} from '../../domain/public-shapes/sessions.ts';

const SessionParams = v.object({ projectId: Uuid, sessionId: Uuid });
const PendingTurnParams = v.object({ projectId: Uuid, sessionId: Uuid, turnId: Uuid });

/**
 * `GET /sessions` query: paging plus filters. `root=true` keeps only root sessions (no parent);
 * it cannot be combined with `parentSessionId`.
 */
const ListSessionsQuery = v.pipe(
  v.object({
    limit: ListLimit,
    cursor: v.optional(v.pipe(v.string(), v.maxLength(512, 'cursor is too long'))),
    agentId: v.optional(Uuid),
    status: v.optional(v.picklist(SESSION_STATUSES, `status must be one of ${SESSION_STATUSES.join(', ')}`)),
    parentSessionId: v.optional(Uuid),
    root: v.optional(
      v.pipe(
        v.picklist(['true', 'false'], 'root must be true or false'),
        v.transform((value) => value === 'true'),
      ),
    ),
    archived: v.optional(
      v.pipe(
        v.picklist(['true', 'false'], 'archived must be true or false'),
        v.transform((value) => value === 'true'),
      ),
    ),
    agentVersionId: v.optional(Uuid),
    order: v.optional(v.picklist(['asc', 'desc'], 'order must be asc or desc')),
  }),
  v.check((query) => !(query.root === true && query.parentSessionId !== undefined), 'root=true cannot be combined with parentSessionId'),
);

/**
 * Sessions (spec 2 "Sessions, runs, files"): creating one needs `session:write` and
 * `run:create` (it may queue the first run); a follow-up turn needs `run:create` (`ifBusy:
 * interrupt` on a busy session `run:cancel` too: it cancels the active run); withdrawing a pending
 * turn needs `run:create`, and `run:cancel` too when another principal queued it; a fork needs all three; changing a title needs `session:write`, archiving or
 * deleting `session:write` and `run:cancel` (either cancels the active run); reads need
 * `session:read`. Session files come with
 * attachments. Idle sessions, `ifBusy` and forks: docs/decisions/idle-sessions.md,
 * docs/decisions/if-busy.md and docs/decisions/session-fork.md.
 */
export function sessionRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/sessions',
      route({
        summary: 'List sessions with status and token counters',
        scopes: ['session:read'],
        query: ListSessionsQuery,
        responses: { 200: { description: 'A page of sessions', schema: SessionPageShape } },
      }),
      async (c) => {
        return c.json(await listSessions({ ctx: c.var.ctx, input: validQuery(c, ListSessionsQuery) }));
      },
    )
    .post(
      '/projects/:projectId/sessions',
      route({
        summary: 'Create a session, with its first run when a message or files are given (else idle)',
        scopes: ['session:write', 'run:create'],
        body: CreateSessionInput,
        responses: { 201: { description: 'The session with its `run` (`null` while idle)', schema: CreatedSessionShape } },
        transaction: turnTransaction,
      }),
      async (c) => {
        const body = await validBody(c, CreateSessionInput, { maxBytes: MAX_TURN_BODY_BYTES });
        const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
        return c.json(await createSession({ ctx: c.var.ctx, deps, input: { ...body, idempotencyKey }, writesLast: true }), 201);
      },
    )
    .get(
      '/projects/:projectId/sessions/:sessionId',
      route({
        summary: 'Session detail',
        scopes: ['session:read'],
        params: SessionParams,
        responses: { 200: { description: 'The session', schema: SessionDetailShape } },
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        return c.json(await getSession({ ctx: c.var.ctx, input: { sessionId } }));
      },
    )
    .patch(
      '/projects/:projectId/sessions/:sessionId',
      route({
        summary: "Change a session's title",
        scopes: ['session:write'],
        params: SessionParams,
        body: UpdateSessionInput,
        responses: { 200: { description: 'The session', schema: PublicSessionListItemShape } },
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        const body = await validBody(c, UpdateSessionInput);
        return c.json(await updateSession({ ctx: c.var.ctx, input: { ...body, sessionId } }));
      },
    )
    .post(
      '/projects/:projectId/sessions/:sessionId/archive',
      route({
        summary: 'Archive a session: its active run is cancelled, its pending turns withdrawn; it stays readable and takes no new turns',
        scopes: ['session:write', 'run:cancel'],
        params: SessionParams,
        responses: { 200: { description: 'The session, with `archivedAt`', schema: PublicSessionListItemShape } },
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        return c.json(await archiveSession({ ctx: c.var.ctx, deps, input: { sessionId } }));
      },
    )
    .delete(
      '/projects/:projectId/sessions/:sessionId',
      route({
        summary: 'Delete a session: its active run is cancelled, its pending turns withdrawn; every read of it is a 404 from then on',
        scopes: ['session:write', 'run:cancel'],
        params: SessionParams,
        responses: { 200: { description: '`{id, deleted: true}`', schema: SessionDeletedShape } },
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        return c.json(await deleteSession({ ctx: c.var.ctx, deps, input: { sessionId } }));
      },
    )
    .post(
      '/projects/:projectId/sessions/:sessionId/runs',
      route({
        summary: 'Queue a follow-up run (or, with `ifBusy` on a busy session, a pending turn; `interrupt` needs `run:cancel` too)',
        scopes: ['run:create'],
        params: SessionParams,
        body: FollowUpInput,
        responses: { 202: { description: 'The run, or `{queued: true, pendingTurn}` when the turn waits for the active run', schema: FollowUpAnswerShape } },
        transaction: turnTransaction,
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        const body = await validBody(c, FollowUpInput, { maxBytes: MAX_TURN_BODY_BYTES });
        const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
        return c.json(await createFollowUpRun({ ctx: c.var.ctx, deps, input: { ...body, sessionId, idempotencyKey } }), 202);
      },
    )
    .delete(
      '/projects/:projectId/sessions/:sessionId/pending-turns/:turnId',
      route({
        summary: 'Withdraw a pending turn that has not become a run (a turn another principal queued needs `run:cancel` too)',
        scopes: ['run:create'],
        params: PendingTurnParams,
        responses: { 200: { description: '`{id, withdrawn: true}`', schema: PendingTurnWithdrawnShape } },
      }),
      async (c) => {
        const { sessionId, turnId } = validParams(c, PendingTurnParams);
        await withdrawPendingTurn({ ctx: c.var.ctx, input: { sessionId, turnId } });
        return c.json({ id: turnId, withdrawn: true as const });
      },
    )
    .post(
      '/projects/:projectId/sessions/:sessionId/fork',
      route({
        summary: 'Fork a session from one of its settled runs (a new session with that transcript; idle unless a message or files are given)',
        scopes: ['session:read', 'session:write', 'run:create'],
        params: SessionParams,
        body: ForkSessionInput,
        responses: { 201: { description: 'The new session, `forkedFrom`, `workspace` and its `run` (`null` while idle)', schema: ForkedSessionShape } },
        // The workspace copy and any uploads happen before the transaction opens.
        transaction: 'deferred',
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        const body = await validBody(c, ForkSessionInput, { maxBytes: MAX_TURN_BODY_BYTES });
        const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
        return c.json(await forkSession({ ctx: c.var.ctx, deps, input: { ...body, sessionId, idempotencyKey } }), 201);
      },
    );
}
