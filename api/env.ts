import type { Logger } from '../config/logger.ts';
import type { Actor, ServiceContext } from '../services/kernel/service-context.ts';
import type { RouteDoc } from './openapi/route-contract.ts';

/** Variables Hono middleware sets on each request (see api/app.ts for the order). */
export type AppVariables = {
  requestId: string;
  logger: Logger;
  /** Set by the auth middleware once the request is authenticated. */
  actor: Actor;
  /** How the request authenticated: browser credentials (cookie, edge assertion) need Origin checks on mutations. */
  authMethod: 'api_key' | 'cookie' | 'edge_assertion';
  /** The cookie session's id (null for API keys and edge assertions). */
  browserSessionId: string | null;
  /** The service context for this request: db or the request's idempotency transaction. */
  ctx: ServiceContext;
  /** Project id from a `/projects/{projectId}/...` path, once auth has checked it. */
  routeProjectId: string | null;
  /** A public response to store for idempotent replay instead of the one sent. */
  idempotencyStoredBody: unknown;
  /** The matched route's contract (`route(...)` in its route file). */
  routeDoc: RouteDoc;
  /** SVC_CHECK_RESPONSES: JSON success answers are checked against the contract's shapes. */
  checkResponses: boolean;
};

export type AppEnv = { Variables: AppVariables };
