import type { Context } from 'hono';
import type { ServiceContext } from '../services/kernel/service-context.ts';
import type { AppDeps } from './deps.ts';
import type { AppEnv } from './env.ts';

/** A request's service context before anyone is authenticated: the pool, the request's id and log, the clock. */
export function requestServiceContext(deps: Pick<AppDeps, 'database' | 'clock'>, c: Context<AppEnv>): ServiceContext {
  return {
    db: deps.database.db,
    inTransaction: false,
    afterCommit: [],
    actor: null,
    requestId: c.get('requestId'),
    logger: c.get('logger'),
    clock: deps.clock,
  };
}
