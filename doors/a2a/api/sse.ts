import { DEFAULT_HEARTBEAT_MS, SSE_HEADERS } from '../../../api/routes/events.ts';

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': heartbeat\n\n');

/**
 * An SSE response of a door's stream: each item of `frames` is one `data:` frame, pulled as the
 * client reads (a slow reader holds the generator, nothing piles up), with a heartbeat comment
 * while nothing moves. The first frame is already in hand (a method's errors before its first
 * update are answered as a plain error, not as a stream). `finish` runs once, however it ends.
 */
export function sseResponse(options: {
  first: string;
  rest: AsyncIterator<string>;
  onError(error: unknown): string;
  /** The `event:` type of the error frame (the HTTP+JSON binding's clients look for `error`); none: a plain frame. */
  errorEvent?: string;
  finish(): void;
  headers?: Record<string, string>;
}): Response {
  let heartbeat: NodeJS.Timeout | undefined;
  let open = true;
  const finish = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    void options.rest.return?.(undefined);
    options.finish();
  };
  const frame = (data: string) => encoder.encode(`data: ${data}\n\n`);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(frame(options.first));
      heartbeat = setInterval(() => open && controller.enqueue(HEARTBEAT), DEFAULT_HEARTBEAT_MS);
    },
    async pull(controller) {
      try {
        const next = await options.rest.next();
        if (!open) return;
        if (next.done) {
          finish();
          controller.close();
          return;
        }
        controller.enqueue(frame(next.value));
      } catch (error) {
        if (!open) return;
        const data = options.onError(error);
        controller.enqueue(options.errorEvent ? encoder.encode(`event: ${options.errorEvent}\ndata: ${data}\n\n`) : frame(data));
        finish();
        controller.close();
      }
    },
    cancel: finish,
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}
