import type { Actor, Clock, ServiceContext } from '../../kernel/service-context.ts';

/**
 * How long an authenticated API key is taken on trust without reading it again: a key revoked
 * (or a project deleted) by another process stops working within this long.
 */
export const API_KEY_CACHE_MS = 1_000;
/** Entries kept at most; past this the cache starts afresh (a burst of distinct keys). */
const MAX_ENTRIES = 10_000;

/**
 * API keys this process authenticated in the last second, by keyed hash and the project the
 * request addressed: a client's burst of requests costs one lookup a second instead of one each
 * (issue 33). A change that takes access away (a revocation, a member's removal, a project's
 * deletion) made through this process forgets every entry once it commits
 * (`forgetCachedApiKeysAfterCommit`); one made through another process is seen within
 * `API_KEY_CACHE_MS`.
 */
export type ApiKeyCache = {
  get(secretHash: string, projectId: string | null): Actor | undefined;
  set(secretHash: string, projectId: string | null, actor: Actor): void;
};

/** Bumped by every access-removing change of this process: entries from before it are void. */
let generation = 0;

export function createApiKeyCache(clock: Clock, ttlMs = API_KEY_CACHE_MS): ApiKeyCache {
  const entries = new Map<string, { actor: Actor; until: number; generation: number }>();
  const keyOf = (secretHash: string, projectId: string | null) => `${secretHash}\u0000${projectId ?? ''}`;
  return {
    get(secretHash, projectId) {
      const key = keyOf(secretHash, projectId);
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.generation !== generation || clock.now().getTime() >= entry.until) {
        entries.delete(key);
        return undefined;
      }
      return entry.actor;
    },
    set(secretHash, projectId, actor) {
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(keyOf(secretHash, projectId), { actor, until: clock.now().getTime() + ttlMs, generation });
    },
  };
}

/**
 * Forgets every cached API key of this process, now and again once the caller's transaction
 * commits (a request between the two would cache what the transaction is about to take away).
 */
export function forgetCachedApiKeysAfterCommit(ctx: ServiceContext): void {
  generation += 1;
  ctx.afterCommit.push(() => {
    generation += 1;
  });
}
