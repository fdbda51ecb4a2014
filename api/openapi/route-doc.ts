import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import * as v from 'valibot';
import { assertHasScopes } from '../../domain/scopes.ts';
import type { AppEnv } from '../env.ts';

export type { ResponseDoc, RouteDoc, Schema, TransactionNeed } from './route-contract.ts';
import type { RouteDoc, TransactionNeed } from './route-contract.ts';

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

/** The contract of the route a request matched (from inside any middleware), if it has one. */
export function matchedRouteDoc(c: Context): RouteDoc | undefined {
  for (const entry of matchedRoutes(c)) {
    const doc = routeDocOf(entry.handler);
    if (doc && (entry.method === c.req.method || entry.method === 'ALL')) return doc;
  }
  return undefined;
}

/** A route's declared transaction need for one request body (unparseable bodies are `eager`: the route refuses them before any call). */
export function transactionNeedOf(doc: RouteDoc | undefined, bodyText: string): TransactionNeed {
  const declared = doc?.transaction ?? 'eager';
  if (typeof declared !== 'function') return declared;
  try {
    return declared(bodyText.trim() === '' ? null : JSON.parse(bodyText));
  } catch {
    return 'eager';
  }
}

/** Whether a mutation of this contract takes an Idempotency-Key (every one not declared `none`). */
export const takesIdempotencyKey = (doc: RouteDoc): boolean => doc.transaction !== 'none';
