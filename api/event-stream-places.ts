import type { LimitSettings } from '../config/settings.ts';
import { RateLimitedError } from '../domain/errors.ts';
import { ConcurrentSlots, type SlotClaim } from '../domain/rate-limits/concurrent-slots.ts';
import type { Actor } from '../services/kernel/service-context.ts';
import { callerKey } from './middleware/rate-limit.ts';

/** A stream's place frees only when another stream ends: a refused client waits a little. */
const STREAM_RETRY_AFTER_SECONDS = 5;

/** Takes a place for one stream of `actor` (or throws `RateLimitedError`); the function returned gives it back. */
export type EventStreamPlaces = (actor: Actor) => () => void;

/**
 * The places of this process's open event streams (SVC_EVENT_STREAMS_PER_*; issue 28): one under
 * the caller (its API key, or the person for browser sessions, as the request limits count them)
 * and one under the project. Made once per API process (scripts/app-deps.ts) and shared by every
 * SSE stream it serves, native or Anthropic-compatible, so the bounds hold across them (issue 45).
 */
export function createEventStreamPlaces(limits: Pick<LimitSettings, 'eventStreamsPerPrincipal' | 'eventStreamsPerProject'>): EventStreamPlaces {
  const slots = new ConcurrentSlots();
  return (actor) => {
    const claims: Array<SlotClaim & { limit: string; what: string }> = [];
    if (limits.eventStreamsPerPrincipal)
      claims.push({
        key: callerKey(actor),
        max: limits.eventStreamsPerPrincipal,
        limit: 'principal_event_streams',
        what: actor.apiKeyId ? 'this API key' : 'you',
      });
    if (limits.eventStreamsPerProject)
      claims.push({ key: `project:${actor.projectId}`, max: limits.eventStreamsPerProject, limit: 'project_event_streams', what: 'this project' });
    const taken = slots.take(claims);
    if (taken.taken) return taken.release;
    const full = claims[taken.index]!;
    throw new RateLimitedError(
      `Too many open event streams for ${full.what} (at most ${full.max} at once); close one or retry later`,
      { limit: full.limit },
      STREAM_RETRY_AFTER_SECONDS,
    );
  };
}
