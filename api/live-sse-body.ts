import type { EventSubscription } from '../processes/project-event-tail.ts';
import type { ProductEventRow } from '../services/kernel/events/index.ts';
import { metrics } from '../services/kernel/metrics/index.ts';

const HEARTBEAT = new TextEncoder().encode(': heartbeat\n\n');

type Rendered = { bytes: Uint8Array | null; end: boolean };

/**
 * Ephemeral frames between durable batches (live model output), already rendered. `beforeDurable`
 * (the delta subscription's) says when a batch must wait for live output heard late.
 */
export type LiveFrames = { take(): Uint8Array | null; ready(): Promise<void>; beforeDurable(rows: ProductEventRow[]): Promise<void> | null };

/**
 * The body of a live event stream, pulled by the HTTP server as the socket drains: each pull
 * sends what live output is ready, else the next durable batch of the subscription, so a slow
 * client stops pulling and the tail drops it to database reads instead of buffering. One
 * ReadableStream, not hono's `streamSSE` (a TransformStream behind a second ReadableStream): with
 * 1,000 clients that halved fan-out latency. `render` turns a batch into bytes (`end`: nothing
 * may follow it, the stream closes); `onError` may enqueue a last frame; `finish` releases what
 * the stream holds (its subscriptions, its place) once, when it ends or the client leaves. Shared
 * by the native feed (api/routes/events.ts) and the Anthropic-compatible stream.
 */
export function liveSseBody(options: {
  /** Which stream this is, for the open-streams gauge. */
  stream: 'events' | 'anthropic';
  subscription: EventSubscription;
  live: LiveFrames | null;
  heartbeatMs: number;
  first?: Uint8Array;
  /** Synchronous where it can be: an await per batch per client shows at 1,000 clients. */
  render(rows: ProductEventRow[]): Rendered | Promise<Rendered>;
  onError(error: unknown, enqueue: (bytes: Uint8Array) => void): void;
  finish(): void;
}): ReadableStream<Uint8Array> {
  const { subscription, live } = options;
  const batches = subscription[Symbol.asyncIterator]();
  let heartbeat: NodeJS.Timeout | undefined;
  let open = true;
  // The durable read in flight: kept across pulls while live output is sent in between.
  let durable: Promise<IteratorResult<ProductEventRow[]>> | null = null;
  const openStreams = metrics.sseConnections.labels(options.stream);
  openStreams.inc();
  const finish = () => {
    if (!open) return;
    open = false;
    openStreams.dec();
    clearInterval(heartbeat);
    subscription.close();
    options.finish();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (options.first) controller.enqueue(options.first);
      heartbeat = setInterval(() => open && controller.enqueue(HEARTBEAT), options.heartbeatMs);
    },
    async pull(controller) {
      try {
        for (;;) {
          const ready = live?.take() ?? null;
          if (ready) {
            controller.enqueue(ready);
            return;
          }
          durable ??= batches.next();
          const next = live ? await Promise.race([durable, live.ready().then(() => null)]) : await durable;
          if (!open) return;
          if (next === null) continue; // live output is ready
          durable = null;
          if (next.done) {
            finish();
            controller.close();
            return;
          }
          // A batch that commits a reply waits until this process has heard the reply's last
          // deltas (sent before it committed, but on another connection than this read), and
          // sends them first: a reader sees the whole text before the message.
          const catchingUp = live?.beforeDurable(next.value) ?? null;
          if (catchingUp) await catchingUp;
          if (!open) return;
          const heard = catchingUp ? live!.take() : null;
          if (heard) controller.enqueue(heard);
          const pending = options.render(next.value);
          const rendered = pending instanceof Promise ? await pending : pending;
          if (!open) return;
          if (rendered.bytes) controller.enqueue(rendered.bytes);
          if (rendered.end) {
            finish();
            controller.close();
            return;
          }
          if (rendered.bytes || heard) return;
        }
      } catch (error) {
        if (!open) return;
        options.onError(error, (bytes) => controller.enqueue(bytes));
        finish();
        controller.close();
      }
    },
    // The client went away (the server cancels the body when the socket closes).
    cancel: finish,
  });
}
