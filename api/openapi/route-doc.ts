import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type * as v from 'valibot';
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
  });
  return Object.assign(middleware, { [ROUTE_DOC]: doc });
}

/** The contract a handler of `app.routes` carries, if it is a `route(...)` middleware. */
export const routeDocOf = (handler: unknown): RouteDoc | undefined => (handler as { [ROUTE_DOC]?: RouteDoc } | null)?.[ROUTE_DOC];
