import { randomUUID } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import type { Logger } from '../../config/logger.ts';
import type { AppEnv } from '../env.ts';

// An incoming id is kept when it is a plain token (so ids from a proxy correlate);
// anything else is replaced, so logs never carry caller-controlled junk.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** First middleware: every response carries `x-request-id`, equal to `error.requestId`. */
export const requestId = (logger: Logger) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const id = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', id);
    c.set('logger', logger.child({ requestId: id }));
    c.header('x-request-id', id);
    await next();
    c.res.headers.set('x-request-id', id);
  });
