import { createMiddleware } from 'hono/factory';
import type { LimitSettings, RequestRate } from '../../config/settings.ts';
import { RateLimitedError } from '../../domain/errors.ts';
import { fullBucket, isFull, returnToken, takeToken, type BucketState, type Charge } from '../../domain/rate-limits/token-bucket.ts';
import type { Actor, Clock } from '../../services/kernel/service-context.ts';
import type { AppEnv } from '../env.ts';

/** Buckets kept before full ones are swept out (a full bucket is the same as none). */
const SWEEP_AT = 10_000;

type Charged = { name: 'api_key_requests' | 'principal_requests' | 'project_requests'; key: string; rule: RequestRate };

/**
 * Answers that refuse the caller (validation, authentication, scope) give the project its token
 * back: a caller's own mistakes and probes are paid from its own bucket only, so they cannot
 * starve the project's other callers (issue 28).
 */
const REFUSALS = new Set([400, 401, 403]);

/**
 * Request limits of one API process (docs/decisions/request-rate-limits.md): after
 * authentication, each request takes a token from its caller's bucket (the API key's, or for a
 * browser session the person's, with the same settings) and from its acting project's bucket;
 * with either empty it is refused with 429 `rate_limited` and `Retry-After`, before idempotency
 * or any route work, so nothing is written and a retry starts afresh. A request the route then
 * refuses (400, 401, 403) returns its project token.
 */
export const rateLimit = (limits: Pick<LimitSettings, 'apiKeyRequests' | 'projectRequests'>, clock: Clock) => {
  const buckets = new Map<string, BucketState>();
  return createMiddleware<AppEnv>(async (c, next) => {
    const actor = c.get('actor');
    if (!actor) return next();
    const charged: Charged[] = [];
    if (limits.apiKeyRequests) {
      // A person's sessions share one bucket across their projects, as a key's requests do.
      charged.push({ name: actor.apiKeyId ? 'api_key_requests' : 'principal_requests', key: callerKey(actor), rule: limits.apiKeyRequests });
    }
    if (limits.projectRequests) charged.push({ name: 'project_requests', key: `project:${actor.projectId}`, rule: limits.projectRequests });
    if (charged.length === 0) return next();

    const nowMs = clock.now().getTime();
    const charges: Charge[] = charged.map(({ key, rule }) => ({ rule, state: buckets.get(key) ?? fullBucket(rule, nowMs) }));
    const taken = takeToken(charges, nowMs);
    if (!taken.allowed) {
      const limit = charged[taken.index]!;
      const what = { api_key_requests: 'this API key', principal_requests: 'you', project_requests: 'this project' }[limit.name];
      throw new RateLimitedError(
        `Too many requests for ${what} (${limit.rule.perSecond} per second, bursts of ${limit.rule.burst}); retry later`,
        { limit: limit.name },
        Math.max(1, Math.ceil(taken.retryAfterMs / 1000)),
      );
    }
    charged.forEach(({ key }, i) => buckets.set(key, taken.states[i]!));
    if (buckets.size > SWEEP_AT) sweep(buckets, nowMs, limits);
    await next();
    const project = charged.find((limit) => limit.name === 'project_requests');
    if (project && REFUSALS.has(c.res.status)) {
      const state = buckets.get(project.key);
      if (state) buckets.set(project.key, returnToken(state, project.rule, clock.now().getTime()));
    }
  });
};

/**
 * Who a caller is for its limits: the API key, or for a browser session the person (organization
 * and subject: all their sessions and projects together). Event streams are bounded by it too.
 */
export function callerKey(actor: Actor): string {
  return actor.apiKeyId ? `key:${actor.apiKeyId}` : `person:${actor.organizationId}:${actor.subject}`;
}

function sweep(buckets: Map<string, BucketState>, nowMs: number, limits: Pick<LimitSettings, 'apiKeyRequests' | 'projectRequests'>) {
  for (const [key, state] of buckets) {
    const rule = key.startsWith('project:') ? limits.projectRequests : limits.apiKeyRequests;
    if (!rule || isFull(state, rule, nowMs)) buckets.delete(key);
  }
}
