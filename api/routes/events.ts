import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import { decodeEventCursor, encodeEventCursor } from '../../domain/event-cursor.ts';
import { CursorExpiredError } from '../../domain/errors.ts';
import { MESSAGE_DELTA_EVENT, MESSAGE_DELTA_RESET_EVENT } from '../../domain/runs/message-deltas.ts';
import type { DeltaFrame } from '../../processes/message-delta-bus.ts';
import type { EventSubscription } from '../../processes/project-event-tail.ts';
import { toPublicEvent, type ProductEventRow } from '../../services/kernel/events/index.ts';
import { eventsPurgedThrough, latestProjectPosition, readProductEvents, readSessionEvents } from '../../services/kernel/events/index.ts';
import { findSession } from '../../services/runtime/runs/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { liveSseBody } from '../live-sse-body.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validParams, validQuery } from '../validation.ts';

/** Default and ceiling of the `once=true` page (decision: 100, at most 1,000). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_HEARTBEAT_MS = 15_000;

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // Tells nginx-style proxies not to buffer the stream.
  'X-Accel-Buffering': 'no',
};

/** An SSE comment line: keeps proxies from closing an idle stream, ignored by clients. */

const EventFeedQuery = v.object({
  once: v.optional(v.picklist(['true', 'false'], 'must be true or false')),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]{1,4}$/, `must be an integer from 1 to ${MAX_PAGE_SIZE}`),
      v.transform(Number),
      v.minValue(1, `must be an integer from 1 to ${MAX_PAGE_SIZE}`),
      v.maxValue(MAX_PAGE_SIZE, `must be an integer from 1 to ${MAX_PAGE_SIZE}`),
    ),
  ),
  /** For clients that cannot set `Last-Event-ID` (the header wins when both are sent). */
  cursor: v.optional(v.string()),
  /** Where a feed without a cursor starts: the beginning of the log (default) or after its newest event. */
  from: v.optional(v.picklist(['start', 'now'], 'must be start or now')),
});

const SessionParams = v.object({ projectId: v.string(), sessionId: Uuid });

const SessionFeedQuery = v.object({
  ...EventFeedQuery.entries,
  /** Also stream the model's text as it is written (ephemeral `message.delta` frames without an `id`). */
  deltas: v.optional(v.picklist(['true', 'false'], 'must be true or false')),
});

export type EventRoutesOptions = { heartbeatMs?: number };

const FEED_HEADERS = { 'Last-Event-ID': 'The `id` of the last frame received: the feed resumes after it (wins over `cursor`)' };

/**
 * `GET /projects/{projectId}/events` (spec 2 "Event feed"): server-sent events of the project's
 * product log; `GET /projects/{projectId}/sessions/{sessionId}/events` the same for one session's
 * events only (read through the session index, never the rest of the log). `Last-Event-ID` (or `?cursor=`) resumes after that frame
 * (`410 cursor_expired` when retention deleted events after it: docs/decisions/cursor-expired.md); without either the
 * feed starts at the beginning of the log, or with `from=now` after its newest event (the
 * subscription is in place before the answer starts, so nothing committed later is missed). `once=true` sends the available page and closes;
 * otherwise the stream follows the shared `ProjectEventTail` until the client leaves.
 *
 * Streams open at once are bounded per caller and per project in this process, in the pool every
 * SSE stream of the process shares (`deps.eventStreamPlaces`, api/event-stream-places.ts): one more
 * is refused with 429 `rate_limited`. A stream holds its place until it ends or its client leaves;
 * a `once=true` page while it is read.
 */
export function eventRoutes(deps: AppDeps, options: EventRoutesOptions = {}) {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const takeStreamPlace = deps.eventStreamPlaces;

  /**
   * One feed: the project's whole log, or one session's events (`sessionId`). Both speak the same
   * frames and cursors (a cursor is a project position), so a cursor taken from one resumes the other.
   */
  const feed = async (c: Context<AppEnv>, query: v.InferOutput<typeof EventFeedQuery>, session: { id: string; deltas: boolean } | null) => {
    const sessionId = session?.id ?? null;
    // Auth has checked the path project against the caller; the actor holds its canonical id.
    const projectId = c.var.actor.projectId;
    // Decode before any byte is streamed, so a bad cursor is a normal 400 envelope.
    const resume = resumePosition(c, projectId, query.cursor);
    const resumeAfter = resume?.position ?? null;
    // A cursor below what retention deleted would skip events silently: 410 before any byte.
    if (resume && resume.position < (await eventsPurgedThrough({ db: c.var.ctx.db, input: { projectId } }))) {
      throw new CursorExpiredError(
        'The event cursor is older than the events this project keeps (retention deleted the ones after it): reconnect with from=now, or without a cursor to start at the oldest event kept',
        {
          path: resume.path,
          restartFrom: 'now',
        },
      );
    }
    // Hono answers HEAD with the GET handler's headers and drops its body uncancelled: a live
    // stream would never end, holding its subscription and its place for good.
    if (c.req.method === 'HEAD') return c.body(null, 200, SSE_HEADERS);

    const release = takeStreamPlace(c.var.actor);
    // A page gives its place back once read; a live stream when it ends (liveStream).
    let streaming = false;
    try {
      const after = resumeAfter ?? (query.from === 'now' ? await latestProjectPosition({ db: c.var.ctx.db, input: { projectId } }) : 0n);
      if (query.once === 'true') {
        const page = { projectId, afterPosition: after, limit: query.limit ?? DEFAULT_PAGE_SIZE };
        const rows = sessionId
          ? await readSessionEvents({ db: c.var.ctx.db, input: { ...page, sessionId } })
          : await readProductEvents({ db: c.var.ctx.db, input: page });
        return c.body(Buffer.concat(rows.map(renderEventFrame)), 200, SSE_HEADERS);
      }
      // Live output first: its catch-up then holds whatever was written before the durable read.
      const deltas = session?.deltas ? deps.messageDeltas.subscribe(session.id) : null;
      let subscription: EventSubscription;
      try {
        subscription = await deps.eventTail.subscribe(projectId, after, sessionId ? { sessionId } : {});
      } catch (error) {
        deltas?.close();
        throw error;
      }
      const onError = (error: unknown) =>
        // Never echo the error into the stream; the client reconnects with its Last-Event-ID.
        c.var.logger.error('event feed failed', { err: error, projectId, sessionId, requestId: c.var.requestId });
      streaming = true;
      const body = liveSseBody({
        stream: 'events',
        subscription,
        live: deltas
          ? { take: () => renderDeltaFrames(deltas.take()), ready: () => deltas.ready(), beforeDurable: (rows) => deltas.beforeDurable(rows) }
          : null,
        heartbeatMs,
        render: (rows) => ({ bytes: rows.length === 1 ? renderEventFrame(rows[0]!) : Buffer.concat(rows.map(renderEventFrame)), end: false }),
        onError,
        finish: () => {
          deltas?.close();
          release();
        },
      });
      return c.body(body, 200, SSE_HEADERS);
    } finally {
      if (!streaming) release();
    }
  };

  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/events',
      route({
        summary: "The project's product events as server-sent events; resumes after `Last-Event-ID`",
        scopes: ['run:read'],
        query: EventFeedQuery,
        headers: FEED_HEADERS,
        responses: {
          200: {
            description:
              'Frames `id` (cursor), `event` (kind), `data` (the public product event); with `once=true` the available page, then the stream ' +
              'closes. A cursor older than the events retention kept is refused with `410 cursor_expired` (reconnect with `from=now`)',
            content: 'event-stream',
          },
        },
      }),
      async (c) => {
        return feed(c, validQuery(c, EventFeedQuery), null);
      },
    )
    .get(
      '/projects/:projectId/sessions/:sessionId/events',
      route({
        summary:
          "One session's product events as server-sent events (its runs, messages, tool calls, approvals, delegations), with `deltas=true` " +
          "also the model's text as it is written; resumes after `Last-Event-ID`",
        scopes: ['run:read'],
        params: SessionParams,
        query: SessionFeedQuery,
        headers: FEED_HEADERS,
        responses: {
          200: {
            description:
              "The project feed's frames (`id` cursor, `event` kind, `data`), only this session's events; with `deltas=true` also " +
              '`message.delta` and `message.delta_reset` frames without an `id`; with `once=true` the available page, then the stream closes',
            content: 'event-stream',
          },
        },
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        const query = validQuery(c, SessionFeedQuery);
        // 404 for a session of another project (auth has already refused another organization's).
        await findSession({ ctx: c.var.ctx, input: { sessionId } });
        return feed(c, query, { id: sessionId, deltas: query.deltas === 'true' });
      },
    );
}

/**
 * Ephemeral frames of live output: no `id` line (they never move the cursor), `event` the frame's
 * kind, `data` the delta or reset.
 */
function renderDeltaFrames(frames: DeltaFrame[]): Uint8Array | null {
  if (frames.length === 0) return null;
  let text = '';
  for (const frame of frames) {
    text +=
      frame.kind === 'delta'
        ? `event: ${MESSAGE_DELTA_EVENT}\ndata: ${JSON.stringify(frame.delta)}\n\n`
        : `event: ${MESSAGE_DELTA_RESET_EVENT}\ndata: ${JSON.stringify(frame.reset)}\n\n`;
  }
  return encoder.encode(text);
}

/** The position to resume after, from `Last-Event-ID` or `cursor`, and where it came from; null when neither is given. */
function resumePosition(c: Context<AppEnv>, projectId: string, queryCursor: string | undefined): { position: bigint; path: string } | null {
  const header = c.req.header('last-event-id');
  if (header !== undefined && header.trim() !== '') {
    const path = 'header.Last-Event-ID';
    return { position: decodeEventCursor(header.trim(), projectId, { path }), path };
  }
  if (queryCursor !== undefined) return { position: decodeEventCursor(queryCursor, projectId, { path: 'query.cursor' }), path: 'query.cursor' };
  return null;
}

const frames = new WeakMap<ProductEventRow, Uint8Array>();
const encoder = new TextEncoder();

/**
 * One SSE frame for a stored event: `id` = cursor, `event` = kind, `data` = the public event
 * (never message content). The tail hands the same row object to every subscriber, so the frame
 * is rendered once per event and process, not once per client.
 */
export function renderEventFrame(row: ProductEventRow): Uint8Array {
  let frame = frames.get(row);
  if (!frame) {
    const data = JSON.stringify(toPublicEvent(row, { includeMessage: false }));
    // JSON.stringify escapes line breaks, and kinds are dotted lowercase names: one line each.
    frame = encoder.encode(`id: ${encodeEventCursor(row.projectId, row.projectPosition)}\nevent: ${row.kind}\ndata: ${data}\n\n`);
    frames.set(row, frame);
  }
  return frame;
}
