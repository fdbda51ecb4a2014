import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import * as v from 'valibot';
import { assertHasScopes, type Scope } from '../../domain/scopes.ts';
import type { AppEnv } from '../env.ts';

export type Schema = v.GenericSchema<unknown, unknown>;

/** What a success answer carries: JSON (described by `schema` when given), an SSE stream, or file bytes. */
export type ResponseDoc = { description: string; schema?: Schema; content?: 'json' | 'event-stream' | 'file' };

/**
 * A route's contract, declared beside its handler: the one source of the OpenAPI document
 * (`api/openapi/document.ts`) and of the route's scope check. The request schemas are the very
 * objects the handler validates with (`validBody`/`validQuery`/`validParams` refuse any other),
 * so the document cannot drift from what the route accepts.
 */
export type RouteDoc = {
  /** One line for the reference. */
  summary: string;
  /** Scopes the principal needs (spec 3 "Scopes"); `[]`: any authenticated principal; `public`: no authentication. */
  scopes: readonly Scope[] | 'public';
  params?: Schema;
  query?: Schema;
  body?: Schema;
  /** Optional request headers the route reads, with what they do. */
  headers?: Record<string, string>;
  /** The success answers (error answers are the common envelope, added by the document). */
  responses: Record<number, ResponseDoc>;
};

const ROUTE_DOC = Symbol.for('svc.routeDoc');

/** The route's contract as a middleware: checks its scopes, then exposes the contract to the validators. */
export function route(doc: RouteDoc): MiddlewareHandler<AppEnv> {
  const middleware = createMiddleware<AppEnv>(async (c, next) => {
    if (doc.scopes !== 'public' && doc.scopes.length > 0) assertHasScopes(c.var.actor.scopes, doc.scopes);
    c.set('routeDoc', doc);
    await next();
    if (c.get('checkResponses')) await checkResponse(c.res, doc, `${c.req.method} ${c.req.routePath}`);
  });
  return Object.assign(middleware, { [ROUTE_DOC]: doc });
}

/**
 * A JSON success answer must match the shape its contract documents (when it documents one):
 * with SVC_CHECK_RESPONSES on (every test app), a drift between what a route sends and what the
 * OpenAPI document promises fails whichever test reaches it.
 */
async function checkResponse(response: Response, doc: RouteDoc, route: string): Promise<void> {
  const shape = doc.responses[response.status]?.schema;
  if (!shape || !(response.headers.get('content-type') ?? '').startsWith('application/json')) return;
  const result = v.safeParse(shape, await response.clone().json());
  if (result.success) return;
  const issue = result.issues[0];
  const at = issue.path?.map((item) => String(item.key)).join('.') ?? '(root)';
  // The expectation only, never the value received: an answer may hold data that must not reach a log.
  throw new Error(`${route} answered ${response.status} with a body its contract does not describe: ${at}: expected ${issue.expected ?? 'nothing here'}`);
}

/** The contract a handler of `app.routes` carries, if it is a `route(...)` middleware. */
export const routeDocOf = (handler: unknown): RouteDoc | undefined => (handler as { [ROUTE_DOC]?: RouteDoc } | null)?.[ROUTE_DOC];
