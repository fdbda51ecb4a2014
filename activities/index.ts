import type { Snapshot } from '../domain/sandbox/snapshot-registry.ts';
import { type ServiceContext, systemContext } from '../services/service-context.ts';
import type { ProjectEventTail } from '../services/background/project-event-tail.ts';
import { createRunActivities, type RunActivityDeps } from './run-activities.ts';
import type { SandboxBrowsers } from './sandbox/browser/browser-tools.ts';
import type { LocalSandboxDriver } from './sandbox/local/driver.ts';
import { createSandboxToolRunner } from './sandbox/tool-runner.ts';
import { createWorkspaceSteps } from './sandbox/workspace-steps.ts';
import { createWebhookActivities } from './webhooks/deliver-batch.ts';
import type { DestinationLookup } from './webhooks/pinned-post.ts';

export type ActivityDeps = Omit<RunActivityDeps, 'sandboxTools' | 'workspaceSteps'> & {
  /** The sandbox driver of this worker and the snapshots it can boot. */
  sandboxDriver: LocalSandboxDriver;
  sandboxBrowsers: SandboxBrowsers;
  sandboxSnapshots: readonly Snapshot[];
  /** SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK (development only). */
  webhooksAllowPrivateNetwork: boolean;
  /** DNS for webhook destinations; the system resolver by default. */
  webhookLookup?: DestinationLookup;
  /** The worker's shared event tail (webhook activities linger on it for new events). */
  eventTail?: ProjectEventTail;
};

/** Every activity the runtime worker registers, wired once per worker process. */
export function createActivities(deps: ActivityDeps) {
  const system = (): ServiceContext => systemContext({ db: deps.database.db, logger: deps.logger, clock: deps.clock });
  const snapshots = new Map(deps.sandboxSnapshots.map((snapshot) => [snapshot.id.toLowerCase(), snapshot]));
  const sandbox = { system, driver: deps.sandboxDriver, snapshots };
  return {
    ...createRunActivities({ ...deps, sandboxTools: createSandboxToolRunner({ ...sandbox, browsers: deps.sandboxBrowsers }), workspaceSteps: createWorkspaceSteps({ ...sandbox, keyring: deps.keyring }) }),
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
