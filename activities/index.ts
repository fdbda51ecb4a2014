import type { Logger } from '../config/logger.ts';
import type { DatabaseHandle } from '../db/client.ts';
import type { Snapshot } from '../domain/sandbox/snapshot-registry.ts';
import type { CredentialKeyring } from '../services/credentials/keyring.ts';
import type { DeploymentPreset } from '../services/model-presets/deployment.ts';
import { systemContext, type Clock } from '../services/service-context.ts';
import type { ProjectEventTail } from '../services/background/project-event-tail.ts';
import { classifyFailures } from './failures.ts';
import type { PlatformToolRegistry } from './platform-tools/registry.ts';
import type { ProviderType } from './providers/types.ts';
import { createRunActivities } from './run-activities.ts';
import type { SandboxBrowsers } from './sandbox/browser/browser-tools.ts';
import type { LocalSandboxDriver } from './sandbox/local/driver.ts';
import { createSandboxToolRunner } from './sandbox/tool-runner.ts';
import { createWorkspaceSteps } from './sandbox/workspace-steps.ts';
import { createToolActivities } from './tool-activities.ts';
import { createWebhookActivities } from './webhooks/deliver-batch.ts';
import type { DestinationLookup } from './webhooks/pinned-post.ts';

export type ActivityDeps = {
  database: DatabaseHandle;
  logger: Logger;
  clock: Clock;
  keyring: CredentialKeyring;
  /** Handlers of platform-owned tools, by tool name. */
  platformTools: PlatformToolRegistry;
  modelBaseUrls: Record<ProviderType, string>;
  deploymentPresets: readonly DeploymentPreset[];
  /** The sandbox driver of this worker and the snapshots it can boot. */
  sandboxDriver: LocalSandboxDriver;
  sandboxBrowsers: SandboxBrowsers;
  sandboxSnapshots: readonly Snapshot[];
  /** SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK (development only): also governs MCP endpoints. */
  webhooksAllowPrivateNetwork: boolean;
  /** DNS for webhook and MCP destinations; the system resolver by default. */
  webhookLookup?: DestinationLookup;
  /** The worker's shared event tail (webhook activities linger on it for new events). */
  eventTail?: ProjectEventTail;
};

/**
 * Every activity the runtime worker registers, wired once per worker process. Each one's errors
 * are classified in one place (activities/failures.ts).
 */
export function createActivities(deps: ActivityDeps) {
  const system = () => systemContext({ db: deps.database.db, logger: deps.logger, clock: deps.clock });
  const snapshots = new Map(deps.sandboxSnapshots.map((snapshot) => [snapshot.id.toLowerCase(), snapshot]));
  const sandbox = { system, driver: deps.sandboxDriver, snapshots };
  const workspaceSteps = createWorkspaceSteps({ ...sandbox, keyring: deps.keyring });
  return classifyFailures({
    ...createRunActivities({ system, keyring: deps.keyring, modelBaseUrls: deps.modelBaseUrls, deploymentPresets: deps.deploymentPresets }),
    ...createToolActivities({
      system,
      platformTools: deps.platformTools,
      sandboxTools: createSandboxToolRunner({ ...sandbox, browsers: deps.sandboxBrowsers }),
      // MCP endpoints follow the webhooks' address rules and development setting (docs/decisions.md "MCP").
      mcp: { keyring: deps.keyring, allowPrivateNetwork: deps.webhooksAllowPrivateNetwork, ...(deps.webhookLookup ? { lookup: deps.webhookLookup } : {}) },
    }),
    prepareRunWorkspace: workspaceSteps.prepareRunWorkspace,
    backupWorkspace: workspaceSteps.backupWorkspace,
    ...createWebhookActivities({
      system,
      keyring: deps.keyring,
      allowPrivateNetwork: deps.webhooksAllowPrivateNetwork,
      ...(deps.webhookLookup ? { lookup: deps.webhookLookup } : {}),
      ...(deps.eventTail ? { eventTail: deps.eventTail } : {}),
    }),
  });
}
