import { createMiddleware } from 'hono/factory';
import type { LimitSettings, RequestRate } from '../../config/settings.ts';
import { RateLimitedError } from '../../domain/errors.ts';
import { fullBucket, isFull, takeToken, type BucketState, type Charge } from '../../domain/rate-limits/token-bucket.ts';
import type { Clock } from '../../services/service-context.ts';
import type { AppEnv } from '../env.ts';

/** Buckets kept before full ones are swept out (a full bucket is the same as none). */
const SWEEP_AT = 10_000;

type Charged = { name: 'api_key_requests' | 'project_requests'; key: string; rule: RequestRate };

/**
 * Request limits of one API process (docs/decisions.md "Rate limits and quotas"): after
 * authentication, each request takes a token from its API key's bucket and from its acting
 * project's bucket; with either empty it is refused with 429 `rate_limited` and `Retry-After`,
 * before idempotency or any route work, so nothing is written and a retry starts afresh.
 */
export const rateLimit = (limits: Pick<LimitSettings, 'apiKeyRequests' | 'projectRequests'>, clock: Clock) => {
  const buckets = new Map<string, BucketState>();
  return createMiddleware<AppEnv>(async (c, next) => {
    const actor = c.get('actor');
    if (!actor) return next();
    const charged: Charged[] = [];
    if (limits.apiKeyRequests && actor.apiKeyId) charged.push({ name: 'api_key_requests', key: `key:${actor.apiKeyId}`, rule: limits.apiKeyRequests });
    if (limits.projectRequests) charged.push({ name: 'project_requests', key: `project:${actor.projectId}`, rule: limits.projectRequests });
    if (charged.length === 0) return next();

    const nowMs = clock.now().getTime();
    const charges: Charge[] = charged.map(({ key, rule }) => ({ rule, state: buckets.get(key) ?? fullBucket(rule, nowMs) }));
    const taken = takeToken(charges, nowMs);
    if (!taken.allowed) {
      const limit = charged[taken.index]!;
      const what = limit.name === 'api_key_requests' ? 'this API key' : 'this project';
      throw new RateLimitedError(`Too many requests for ${what} (${limit.rule.perSecond} per second, bursts of ${limit.rule.burst}); retry later`, { limit: limit.name }, Math.max(1, Math.ceil(taken.retryAfterMs / 1000)));
    }
    charged.forEach(({ key }, i) => buckets.set(key, taken.states[i]!));
    if (buckets.size > SWEEP_AT) sweep(buckets, nowMs, limits);
    return next();
  });
};

function sweep(buckets: Map<string, BucketState>, nowMs: number, limits: Pick<LimitSettings, 'apiKeyRequests' | 'projectRequests'>) {
  for (const [key, state] of buckets) {
    const rule = key.startsWith('key:') ? limits.apiKeyRequests : limits.projectRequests;
    if (!rule || isFull(state, rule, nowMs)) buckets.delete(key);
  }
}
