import type { PublicProductEvent } from './api-types.ts';
import { sleep } from './sleep.ts';
import type { Transport } from './transport.ts';

/** A product event as the feed's `data` carries it (spec 3 "Product events"). */
export type ProductEvent = PublicProductEvent;
/** One frame: `id` is the opaque cursor to resume after it. */
export type FeedFrame = { id: string; kind: string; event: ProductEvent };

/** Live model output: `text` continues the turn's text at `offset` (offset 0 starts it over). */
export type MessageDelta = { runId: string; turn: number; attempt: number; offset: number; text: string };
/** The attempt that sent text was abandoned: drop the turn's partial text. */
export type MessageDeltaReset = { runId: string; turn: number; attempt: number };
/**
 * A frame of a session stream: a durable event (with its cursor), or, with `deltas`, ephemeral
 * live output (no cursor: it never moves the resume point).
 */
export type SessionFrame =
  ({ type: 'event' } & FeedFrame) | { type: 'message.delta'; delta: MessageDelta } | { type: 'message.delta_reset'; reset: MessageDeltaReset };

export type SessionFollowOptions = Omit<FollowOptions, 'from'> & {
  /** Also yield the model's text as it is written (`message.delta`, `message.delta_reset`). */
  deltas?: boolean;
  from?: 'start' | 'now';
};

export type FollowOptions = {
  /** Resume after this frame id; without it the feed starts at `from`. */
  lastEventId?: string;
  /** Where a feed without `lastEventId` starts: the beginning of the log (default) or now. */
  from?: 'start' | 'now';
  signal?: AbortSignal;
  /** Called each time a connection is open (the first and every reconnection). */
  onConnect?: () => void | Promise<void>;
  /** Called when an open stream ends or fails, before reconnecting (a live indicator). */
  onDisconnect?: () => void;
  /** Delay before reconnecting after a dropped stream; doubles up to 5 s (default 250 ms). */
  reconnectDelayMs?: number;
};

/**
 * Follows a project's event feed (`GET /projects/{id}/events`, server-sent events) and yields
 * every frame once, in order. A dropped connection is reopened with `Last-Event-ID` of the last
 * frame yielded, so nothing is skipped or repeated. Ends when `signal` aborts (throwing its reason).
 */
export async function* followEvents(transport: Transport, projectId: string, options: FollowOptions = {}): AsyncGenerator<FeedFrame> {
  for await (const frame of followStream(transport, `/projects/${projectId}/events`, {}, options)) if (frame.type === 'event') yield stripType(frame);
}

/**
 * Follows one session's stream (`GET /projects/{id}/sessions/{sessionId}/events`): its durable
 * events once each, in order, and with `deltas` the model's text as it is written. A dropped
 * connection is reopened with `Last-Event-ID` of the last durable frame; the server then starts
 * with the whole text so far of any turn being written (a delta at offset 0), so text assembled
 * by offset (`LiveText`) stays exact across reconnections.
 */
export async function* followSession(
  transport: Transport,
  projectId: string,
  sessionId: string,
  options: SessionFollowOptions = {},
): AsyncGenerator<SessionFrame> {
  yield* followStream(transport, `/projects/${projectId}/sessions/${sessionId}/events`, options.deltas ? { deltas: 'true' } : {}, options);
}

/**
 * The text of each turn being written, assembled from a session stream's live output: `apply`
 * each frame; `textOf(runId, turn)` is exact at every point (a reset empties the turn, a delta at
 * offset 0 starts it over). Drop a turn once its `message.created` arrives (`forget`).
 */
export class LiveText {
  private readonly turns = new Map<string, string>();

  apply(frame: SessionFrame): void {
    if (frame.type === 'message.delta_reset') this.turns.delete(`${frame.reset.runId}:${frame.reset.turn}`);
    if (frame.type !== 'message.delta') return;
    const key = `${frame.delta.runId}:${frame.delta.turn}`;
    this.turns.set(key, (this.turns.get(key) ?? '').slice(0, frame.delta.offset) + frame.delta.text);
  }

  textOf(runId: string, turn: number): string {
    return this.turns.get(`${runId}:${turn}`) ?? '';
  }

  /** The runs' turns being written, with their text so far. */
  entries(): Array<{ runId: string; turn: number; text: string }> {
    return [...this.turns].map(([key, text]) => {
      const [runId, turn] = key.split(':') as [string, string];
      return { runId, turn: Number(turn), text };
    });
  }

  forget(runId: string): void {
    for (const key of [...this.turns.keys()]) if (key.startsWith(`${runId}:`)) this.turns.delete(key);
  }
}

const stripType = ({ type: _type, ...frame }: { type: 'event' } & FeedFrame): FeedFrame => frame;

async function* followStream(transport: Transport, path: string, query: Record<string, string>, options: FollowOptions): AsyncGenerator<SessionFrame> {
  let lastEventId = options.lastEventId;
  let failures = 0;
  const base = options.reconnectDelayMs ?? 250;
  for (;;) {
    options.signal?.throwIfAborted();
    let received = false;
    try {
      const response = await transport.send('GET', path, {
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        query: lastEventId ? query : { ...query, from: options.from },
        signal: options.signal,
      });
      await options.onConnect?.();
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const frame = parseFrame(block);
            if (!frame) continue; // a heartbeat comment
            if (frame.type === 'event') lastEventId = frame.id;
            received = true;
            yield frame;
          }
        }
      } finally {
        reader.cancel().catch(() => {});
        options.onDisconnect?.();
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      // A refusal (403, a malformed cursor) will not heal by retrying; a dropped stream will.
      if ((error as { status?: number }).status !== undefined && (error as { status: number }).status < 500 && (error as { status: number }).status !== 429)
        throw error;
    }
    failures = received ? 0 : failures + 1;
    await sleep(Math.min(5_000, base * 2 ** Math.max(0, failures - 1)), options.signal);
  }
}

function parseFrame(block: string): SessionFrame | null {
  let id: string | undefined;
  let kind: string | undefined;
  let data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') kind = value;
    else if (field === 'data') data += data ? `\n${value}` : value;
  }
  if (!kind || !data) return null;
  if (kind === 'message.delta' && !id) return { type: 'message.delta', delta: JSON.parse(data) as MessageDelta };
  if (kind === 'message.delta_reset' && !id) return { type: 'message.delta_reset', reset: JSON.parse(data) as MessageDeltaReset };
  if (!id) return null;
  return { type: 'event', id, kind, event: JSON.parse(data) as ProductEvent };
}
