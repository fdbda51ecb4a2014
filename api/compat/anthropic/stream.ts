import type { Context } from 'hono';
import type { CmaEvent } from '../../../domain/compat/anthropic/events.ts';
import { ValidationError } from '../../../domain/errors.ts';
import type { EventSubscription } from '../../../services/background/project-event-tail.ts';
import { archivedEventsOf, cmaEventsForRows } from '../../../services/compat-anthropic/events.ts';
import { latestProjectPosition } from '../../../services/events/read.ts';
import { findSession } from '../../../services/runs/load-session.ts';
import type { ServiceContext } from '../../../services/service-context.ts';
import type { AppDeps } from '../../deps.ts';
import type { AppEnv } from '../../env.ts';
import { DEFAULT_HEARTBEAT_MS, SSE_HEADERS, streamPlaces } from '../../routes/events.ts';

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': heartbeat\n\n');
const CONNECTED = encoder.encode(': connected\n\n');

/** One CMA event as an SSE frame: `event:` is its type (the SDK drops frames without one). */
/** After these the session takes nothing more: the stream closes (the SDK's runner stops on them). */
const ENDING = new Set(['session.status_terminated', 'session.deleted']);

const frameOf = (event: CmaEvent) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * `GET /v1/sessions/{id}/events/stream`: live only (what commits after the subscription is in
 * place; history is the list), as the SDK's tool runner expects: it opens the stream, then lists.
 * It closes after the session's `session.status_terminated` or `session.deleted`; on an archived
 * session it sends that one terminated event and closes.
 * Headers and a comment go out at once (the SDK resolves `stream()` on headers). `event_deltas[]`
 * is accepted; deltas are not sent yet.
 */
export function compatStream(deps: AppDeps, options: { heartbeatMs?: number } = {}) {
  const takeStreamPlace = streamPlaces(deps.settings.limits);
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  return async (c: Context<AppEnv>, sessionId: string) => {
    for (const kind of c.req.queries('event_deltas[]') ?? []) {
      if (kind !== 'agent.message' && kind !== 'agent.thinking') throw new ValidationError(`event_deltas: unknown event type ${kind}`, { path: 'query.event_deltas' });
    }
    const ctx = c.var.ctx;
    const session = await findSession({ ctx, input: { sessionId } });
    if (session.archivedAt) return c.body(await terminatedFrame(ctx, session.id), 200, { ...SSE_HEADERS, 'request-id': c.var.requestId });
    const release = takeStreamPlace(c.var.actor);
    let subscription: EventSubscription;
    try {
      const after = await latestProjectPosition({ db: ctx.db, input: { projectId: session.projectId } });
      subscription = await deps.eventTail.subscribe(session.projectId, after, { sessionId: session.id });
    } catch (error) {
      release();
      throw error;
    }
    const batches = subscription[Symbol.asyncIterator]();
    let heartbeat: NodeJS.Timeout | undefined;
    let open = true;
    const finish = () => {
      open = false;
      clearInterval(heartbeat);
      subscription.close();
      release();
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(CONNECTED);
        heartbeat = setInterval(() => open && controller.enqueue(HEARTBEAT), heartbeatMs);
      },
      async pull(controller) {
        try {
          for (;;) {
            const next = await batches.next();
            if (!open) return;
            if (next.done) {
              finish();
              controller.close();
              return;
            }
            const events = await cmaEventsForRows({ ctx, input: { rows: next.value } });
            if (events.length === 0) continue;
            const end = events.findIndex((event) => ENDING.has(event.type));
            controller.enqueue(encoder.encode((end === -1 ? events : events.slice(0, end + 1)).map(frameOf).join('')));
            if (end !== -1) {
              // The session is over: nothing follows its terminated or deleted event.
              finish();
              controller.close();
            }
            return;
          }
        } catch (error) {
          if (!open) return;
          c.var.logger.error('anthropic event stream failed', { err: error, sessionId, requestId: c.var.requestId });
          // A stream failure, not a business one: the SDK throws and the runner reconnects.
          controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'The event stream failed; reconnect' }, request_id: c.var.requestId })}\n\n`));
          finish();
          controller.close();
        }
      },
      cancel: finish,
    });
    return c.body(body, 200, { ...SSE_HEADERS, 'request-id': c.var.requestId });
  };
}

/** An archived session's stream: its `session.status_terminated` (the id the list gives it), then the end. */
async function terminatedFrame(ctx: ServiceContext, sessionId: string): Promise<string> {
  const events = await archivedEventsOf({ ctx, input: { sessionId } });
  return `: connected\n\n${events.map(frameOf).join('')}`;
}
