import { Hono } from 'hono';
import { ValidationError } from '../../../domain/errors.ts';
import { listCompatEvents } from '../services/events.ts';
import { getCompatThread, listCompatThreads, sessionOfThread } from '../services/threads.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { needs } from './auth.ts';
import { compatStream } from './stream.ts';
import { paging } from './requests.ts';

/**
 * `client.beta.sessions.threads`: list and retrieve a session's threads, and a thread's events
 * (listed, or streamed as the session's stream is). Archiving a thread is not served.
 */
export function compatThreadRoutes(deps: AppDeps) {
  const stream = compatStream(deps);
  return new Hono<AppEnv>()
    .get('/sessions/:sessionId/threads', needs('session:read'), async (c) =>
      c.json(
        await listCompatThreads({
          ctx: c.var.ctx,
          // The SDK sends arrays with brackets (`statuses[]=idle`).
          input: {
            sessionId: c.req.param('sessionId'),
            ...paging(c),
            statuses: [...(c.req.queries('statuses[]') ?? []), ...(c.req.queries('statuses') ?? [])],
          },
        }),
      ),
    )
    .get('/sessions/:sessionId/threads/:threadId', needs('session:read'), async (c) =>
      c.json(await getCompatThread({ ctx: c.var.ctx, input: { sessionId: c.req.param('sessionId'), threadId: c.req.param('threadId') } })),
    )
    .get('/sessions/:sessionId/threads/:threadId/events', needs('session:read', 'run:read'), async (c) => {
      const { sessionId } = await sessionOfThread(c.var.ctx, { sessionId: c.req.param('sessionId'), threadId: c.req.param('threadId') });
      return c.json(await listCompatEvents({ ctx: c.var.ctx, input: { sessionId, ...paging(c), types: [], order: 'asc', created: {} } }));
    })
    .get('/sessions/:sessionId/threads/:threadId/stream', needs('session:read', 'run:read'), async (c) => {
      const { sessionId } = await sessionOfThread(c.var.ctx, { sessionId: c.req.param('sessionId'), threadId: c.req.param('threadId') });
      return stream(c, sessionId);
    })
    .post('/sessions/:sessionId/threads/:threadId/archive', needs('session:write'), () => {
      throw new ValidationError('archiving a thread is not supported by this server; cancel the delegation through the native API', { path: 'path.threadId' });
    });
}
