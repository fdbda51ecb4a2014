import type * as v from 'valibot';
import type { Scope } from '../../domain/scopes.ts';

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
