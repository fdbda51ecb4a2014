import { Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError } from '../../../domain/errors.ts';
import { assertHasScopes, type Scope } from '../../../domain/scopes.ts';
import { listCompatEvents, sendCompatEvents } from '../services/events.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { needs } from './auth.ts';
import { deduped } from './retries.ts';
import { compatStream } from './stream.ts';
import { createdAtBounds, isOurId, jsonBody, orderOf, paging } from './requests.ts';

const sessionIdOf = (id: string) => {
  if (!isOurId(id)) throw new NotFoundError('No session with that id in this project');
  return id;
};

const SendBody = v.strictObject({ events: v.array(v.record(v.string(), v.unknown())) });

/**
 * Each event type needs the scopes of the native route doing the same. A Map, so a caller's type
 * `constructor` or `__proto__` is an unknown type (the verb's 400), never `Object.prototype`'s.
 */
const SCOPES_OF: ReadonlyMap<string, readonly Scope[]> = new Map([
  ['user.message', ['run:create']],
  ['user.interrupt', ['run:cancel']],
  ['user.custom_tool_result', ['tool_call:claim', 'tool_call:submit']],
  ['user.tool_confirmation', ['approval:resolve']],
]);

/** `client.beta.sessions.events`: send, list and stream. */
export function compatEventRoutes(deps: AppDeps) {
  const stream = compatStream(deps);
  return new Hono<AppEnv>()
    .get('/sessions/:sessionId/events/stream', needs('session:read', 'run:read'), async (c) => stream(c, sessionIdOf(c.req.param('sessionId'))))
    .post('/sessions/:sessionId/events', async (c) => {
      const { events } = await jsonBody(c, SendBody);
      assertHasScopes(c.var.actor.scopes, [...new Set(events.flatMap((event) => SCOPES_OF.get(String(event.type)) ?? []))]);
      const sessionId = sessionIdOf(c.req.param('sessionId'));
      return deduped(c, (ctx) => sendCompatEvents({ ctx, deps, input: { sessionId, events } }));
    })
    .get('/sessions/:sessionId/events', needs('session:read', 'run:read'), async (c) =>
      c.json(
        await listCompatEvents({
          ctx: c.var.ctx,
          input: {
            sessionId: sessionIdOf(c.req.param('sessionId')),
            ...paging(c),
            types: c.req.queries('types[]') ?? [],
            order: orderOf(c, 'asc'),
            created: createdAtBounds(c),
          },
        }),
      ),
    );
}
