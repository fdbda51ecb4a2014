import { Hono } from 'hono';
import { listCompatEvents } from '../services/events.ts';
import { archiveCompatThread, getCompatThread, listCompatThreads, sessionOfThread } from '../services/threads.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { needs } from './auth.ts';
import { compatStream } from './stream.ts';
import { paging } from './requests.ts';

/**
 * `client.beta.sessions.threads`: list, retrieve and archive a session's threads (archiving a
 * child thread cancels its delegation, with the native cancel's scopes), and a thread's events
 * (listed, or streamed as the session's stream is).
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
    .post('/sessions/:sessionId/threads/:threadId/archive', needs('session:read', 'delegation:cancel', 'run:cancel'), async (c) =>
      c.json(await archiveCompatThread({ ctx: c.var.ctx, deps, input: { sessionId: c.req.param('sessionId'), threadId: c.req.param('threadId') } })),
    );
}
