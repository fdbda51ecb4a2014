import { createRunActivities, type RunActivityDeps } from './run-activities.ts';
import { createWebhookActivities } from './webhooks/deliver-batch.ts';
import type { DestinationLookup } from './webhooks/pinned-post.ts';
import type { ProjectEventTail } from '../services/events/project-event-tail.ts';

export type ActivityDeps = RunActivityDeps & {
  /** SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK (development only). */
  webhooksAllowPrivateNetwork: boolean;
  /** DNS for webhook destinations; the system resolver by default. */
  webhookLookup?: DestinationLookup;
  /** The worker's shared event tail (webhook activities linger on it for new events). */
  eventTail?: ProjectEventTail;
};

/** Every activity the runtime worker registers, wired once per worker process. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRunActivities(deps),
    ...createWebhookActivities({
      database: deps.database,
      keyring: deps.keyring,
      logger: deps.logger,
      clock: deps.clock,
      allowPrivateNetwork: deps.webhooksAllowPrivateNetwork,
      ...(deps.webhookLookup ? { lookup: deps.webhookLookup } : {}),
      ...(deps.eventTail ? { eventTail: deps.eventTail } : {}),
    }),
  };
}
