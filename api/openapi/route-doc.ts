import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
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
  /** When a mutation's idempotency transaction opens; `eager` when omitted (see `TransactionNeed`). */
  transaction?: TransactionNeed | ((body: unknown) => TransactionNeed);
};

/**
 * A mutation's transaction needs, which the idempotency middleware reads from the matched route
 * (it knows no route itself):
 * - `eager`: the handler runs inside the transaction that also stores its response, from the
 *   start (the cheaper path for verbs that only touch the database).
 * - `deferred`: the verb calls out first (uploads a turn's files, asks an MCP server for its
 *   tools); the transaction opens when the verb's `withTransaction` first asks for it, so none is
 *   held open while bytes travel. A function of the parsed JSON body chooses per request.
 * - `none`: a mutation that changes no resource and takes no Idempotency-Key (sign-in plumbing,
 *   the restore preview).
 */
export type TransactionNeed = 'eager' | 'deferred' | 'none';

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
