import type { MiddlewareHandler } from 'hono';
import { PayloadTooLargeError } from '../../domain/errors.ts';
import type { AppEnv } from '../env.ts';

/**
 * The ceiling on every request body, checked without buffering: a declared `Content-Length` over
 * it is refused before any byte is read (Node then holds the body to that length), and a chunked
 * body is counted as it is read, its reader failing once past the ceiling. Hono's `bodyLimit`
 * reads a chunked body whole before the route runs, which would let a hostile multipart body
 * arrive in full before its route's own, lower limits (api/multipart.ts) could refuse it.
 */
export function bodyCeiling(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () =>
    new PayloadTooLargeError(`The request body may hold at most ${maxBytes.toLocaleString('en-US')} bytes`, {
      path: 'body',
      limit: 'request_body_bytes',
      maxBytes,
    });
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = c.req.header('content-length');
    if (declared !== undefined && !c.req.header('transfer-encoding')) {
      if (Number(declared) > maxBytes) throw tooLarge();
      return next();
    }
    let received = 0;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          received += chunk.byteLength;
          if (received > maxBytes) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
    c.req.raw = new Request(c.req.raw, { body: counted, duplex: 'half' } as RequestInit);
    return next();
  };
}
