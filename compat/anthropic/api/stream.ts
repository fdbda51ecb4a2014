import type { Context } from 'hono';
import { cmaEventId, type CmaEvent } from '../domain/events.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { turnMessageEventId } from '../../../domain/runs/turn-message-event-id.ts';
import type { DeltaSubscription } from '../../../processes/message-delta-bus.ts';
import type { EventSubscription } from '../../../processes/project-event-tail.ts';
import type { ProductEventRow } from '../../../services/kernel/events/index.ts';
import { archivedEventsOf, cmaEventsForRows } from '../services/events.ts';
import { latestProjectPosition } from '../../../services/kernel/events/index.ts';
import { findSession } from '../../../services/runtime/runs/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { liveSseBody } from '../../../api/live-sse-body.ts';
import { DEFAULT_HEARTBEAT_MS, SSE_HEADERS } from '../../../api/routes/events.ts';

const encoder = new TextEncoder();
const CONNECTED = encoder.encode(': connected\n\n');
const encoded = (text: string) => (text === '' ? null : encoder.encode(text));

/** After these the session takes nothing more: the stream closes (the SDK's runner stops on them). */
const ENDING = new Set(['session.status_terminated', 'session.deleted']);

/** One CMA event as an SSE frame: `event:` is its type (the SDK drops frames without one). */
const frameOf = (event: CmaEvent) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * `GET /v1/sessions/{id}/events/stream`: live only (what commits after the subscription is in
 * place; history is the list), as the SDK's tool runner expects: it opens the stream, then lists.
 * It closes after the session's `session.status_terminated` or `session.deleted`; on an archived
 * session it sends that one terminated event and closes.
 * Headers and a comment go out at once (the SDK resolves `stream()` on headers).
 *
 * With `event_deltas[]=agent.message` the reply being written is previewed from live output
 * (issue 30): `event_start` naming the id its `agent.message` will carry, then `event_delta`
 * fragments, interleaved with the durable events as the native session stream does; neither has an
 * `id:` line and neither is ever listed. `agent.thinking` is accepted and previews nothing (our
 * events carry no reasoning).
 */
export function compatStream(deps: AppDeps, options: { heartbeatMs?: number } = {}) {
  // The process's one pool: a key's native and compatible streams count against the same bounds.
  const takeStreamPlace = deps.eventStreamPlaces;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  return async (c: Context<AppEnv>, sessionId: string) => {
    const kinds = c.req.queries('event_deltas[]') ?? [];
    for (const kind of kinds) {
      if (kind !== 'agent.message' && kind !== 'agent.thinking')
        throw new ValidationError(`event_deltas: unknown event type ${kind}`, { path: 'query.event_deltas' });
    }
    const ctx = c.var.ctx;
    const session = await findSession({ ctx, input: { sessionId } });
    if (session.archivedAt) return c.body(await terminatedFrame(ctx, session.id), 200, { ...SSE_HEADERS, 'request-id': c.var.requestId });
    const release = takeStreamPlace(c.var.actor);
    let deltas: DeltaSubscription | null = null;
    let subscription: EventSubscription;
    try {
      // Live output first: its catch-up then holds whatever was written before the durable read.
      deltas = kinds.includes('agent.message') ? deps.messageDeltas.subscribe(session.id) : null;
      const after = await latestProjectPosition({ db: ctx.db, input: { projectId: session.projectId } });
      subscription = await deps.eventTail.subscribe(session.projectId, after, { sessionId: session.id });
    } catch (error) {
      deltas?.close();
      release();
      throw error;
    }
    const previews = deltas ? replyPreviews(deltas) : null;
    const body = liveSseBody({
      stream: 'anthropic',
      subscription,
      live: previews ? { take: () => encoded(previews.take()), ready: () => previews.ready(), beforeDurable: (rows) => previews.beforeDurable(rows) } : null,
      heartbeatMs,
      first: CONNECTED,
      async render(rows) {
        // Text heard before this batch was read goes first: a reply's deltas precede its message.
        const before = previews?.take() ?? '';
        previews?.concluded(rows);
        const events = await cmaEventsForRows({ ctx, input: { rows } });
        // The session is over after its terminated or deleted event: nothing follows it.
        const end = events.findIndex((event) => ENDING.has(event.type));
        return { bytes: encoded(before + (end === -1 ? events : events.slice(0, end + 1)).map(frameOf).join('')), end: end !== -1 };
      },
      onError(error, enqueue) {
        c.var.logger.error('anthropic event stream failed', { err: error, sessionId, requestId: c.var.requestId });
        // A stream failure, not a business one: the SDK throws and the runner reconnects.
        enqueue(
          encoded(
            `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'The event stream failed; reconnect' }, request_id: c.var.requestId })}\n\n`,
          )!,
        );
      },
      finish() {
        deltas?.close();
        release();
      },
    });
    return c.body(body, 200, { ...SSE_HEADERS, 'request-id': c.var.requestId });
  };
}

/**
 * What one stream has previewed of the replies being written, by their CMA id (`sevt_` and the
 * `message.created` id of the run's turn: `turnMessageEventId`, so the `agent.message` that
 * concludes a preview carries its id). Live output names a turn by run and number; its text
 * arrives at offsets, and the bus restarts a turn at offset 0 (a new attempt, a catch-up).
 * - A delta at offset 0 opens the preview with `event_start` (again, when text was shown: the SDK's
 *   accumulator starts the message afresh), then its text as one `event_delta`.
 * - A reset (an abandoned attempt; CMA has none) is a fresh `event_start` with the same id, so the
 *   preview is empty until the retry's text arrives.
 * - Once the turn's message is committed its preview is over: later catch-up text is not sent.
 * - A turn that ends in tool calls renders no `agent.message`: its preview is never concluded
 *   (CMA's previews are best-effort; the SDK types say the buffered message comes "if it is emitted").
 */
function replyPreviews(deltas: DeltaSubscription) {
  /** Characters shown per preview; null once its message committed. */
  const shown = new Map<string, number | null>();
  const start = (id: string) => `event: event_start\ndata: ${JSON.stringify({ type: 'event_start', event: { id, type: 'agent.message' } })}\n\n`;
  const delta = (id: string, text: string) =>
    `event: event_delta\ndata: ${JSON.stringify({ type: 'event_delta', event_id: id, delta: { type: 'content_delta', content: { type: 'text', text }, index: 0 } })}\n\n`;
  return {
    /** The SSE frames of the live output ready now (empty when there is nothing to show). */
    take(): string {
      let text = '';
      for (const frame of deltas.take()) {
        const { runId, turn } = frame.kind === 'delta' ? frame.delta : frame.reset;
        const id = cmaEventId(turnMessageEventId(runId, turn));
        const length = shown.get(id);
        if (length === null) continue; // its message has committed
        if (frame.kind === 'reset') {
          if (length === undefined || length === 0) continue;
          text += start(id);
          shown.set(id, 0);
          continue;
        }
        const { offset, text: piece } = frame.delta;
        if (offset === 0) {
          if (length !== 0) text += start(id);
        } else if (offset !== length) continue; // not contiguous: wait for the bus's catch-up at offset 0
        text += delta(id, piece);
        shown.set(id, offset + piece.length);
      }
      return text;
    },
    ready: () => deltas.ready(),
    beforeDurable: (rows: ProductEventRow[]) => deltas.beforeDurable(rows),
    /** Durable rows read: a preview whose message is among them is over. */
    concluded(rows: ProductEventRow[]) {
      for (const row of rows) if (row.kind === 'message.created' && row.publicPayload.role === 'assistant') shown.set(cmaEventId(row.id), null);
    },
  };
}

/** An archived session's stream: its `session.status_terminated` (the id the list gives it), then the end. */
async function terminatedFrame(ctx: ServiceContext, sessionId: string): Promise<string> {
  const events = await archivedEventsOf({ ctx, input: { sessionId } });
  return `: connected\n\n${events.map(frameOf).join('')}`;
}
