import type { PublicProductEvent } from './api-types.ts';
import { sleep } from './sleep.ts';
import type { Transport } from './transport.ts';

/** A product event as the feed's `data` carries it (spec 3 "Product events"). */
export type ProductEvent = PublicProductEvent;
/** One frame: `id` is the opaque cursor to resume after it. */
export type FeedFrame = { id: string; kind: string; event: ProductEvent };

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
  let lastEventId = options.lastEventId;
  let failures = 0;
  const base = options.reconnectDelayMs ?? 250;
  for (;;) {
    options.signal?.throwIfAborted();
    let received = false;
    try {
      const response = await transport.send('GET', `/projects/${projectId}/events`, {
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        query: lastEventId ? {} : { from: options.from },
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
            lastEventId = frame.id;
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
      if ((error as { status?: number }).status !== undefined && (error as { status: number }).status < 500 && (error as { status: number }).status !== 429) throw error;
    }
    failures = received ? 0 : failures + 1;
    await sleep(Math.min(5_000, base * 2 ** Math.max(0, failures - 1)), options.signal);
  }
}

function parseFrame(block: string): FeedFrame | null {
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
  if (!id || !kind || !data) return null;
  return { id, kind, event: JSON.parse(data) as ProductEvent };
}
