import type { Logger } from '../config/logger.ts';
import type { DatabaseHandle } from '../db/client.ts';
import type { Snapshot } from '../domain/sandbox/snapshot-registry.ts';
import type { CredentialKeyring } from '../services/kernel/credentials/index.ts';
import type { DeploymentPreset } from '../services/configuration/model-presets/index.ts';
import type { AdmissionGate } from '../services/runtime/runs/index.ts';
import { systemContext, type Clock } from '../services/kernel/service-context.ts';
import type { ProjectEventTail } from '../processes/project-event-tail.ts';
import { classifyFailures } from './failures.ts';
import { MCP_TOOL_PREFIX } from '../domain/agent-config/index.ts';
import { LOAD_SKILL_TOOL_NAME } from '../domain/skills/catalog.ts';
import { callMcpTool } from '../services/runtime/mcp/index.ts';
import { answerLoadSkill, answerRunMemoryTool } from '../services/runtime/runs/index.ts';
import { MEMORY_TOOL_NAME_SET } from '../domain/memory/index.ts';
import { createPlatformToolRegistry, fromAnswer, type BuiltInPlatformTool, type PlatformToolHandler } from './platform-tools/registry.ts';
import type { ProviderType } from '../adapters/models/types.ts';
import { createRunActivities } from './run-activities.ts';
import type { SandboxBrowsers } from './sandbox/browser/browser-tools.ts';
import type { LocalSandboxDriver } from './sandbox/local/driver.ts';
import { createSandboxToolRunner } from './sandbox/tool-runner.ts';
import { createWorkspaceSteps } from './sandbox/workspace-steps.ts';
import { createToolActivities } from './tool-activities.ts';
import { createWebhookActivities, type RunTraceContextLookup } from './webhooks/deliver-batch.ts';
import type { DestinationLookup } from '../adapters/outbound/pinned-post.ts';
import type { MessageDeltaBus } from '../processes/message-delta-bus.ts';
import type { RunRecovery } from './run-activity-types.ts';
import type { RunStarter } from '../services/kernel/run-starter.ts';
import type { ScheduleBackend } from '../services/kernel/schedule-backend.ts';
import { createScheduleActivities } from './schedules/firing.ts';

export type ActivityDeps = {
  database: DatabaseHandle;
  logger: Logger;
  clock: Clock;
  keyring: CredentialKeyring;
  /** Handlers of platform-owned tools, by tool name (code or operator modules; built-ins are added here). */
  platformTools: Record<string, PlatformToolHandler>;
  modelBaseUrls: Record<ProviderType, string>;
  deploymentPresets: readonly DeploymentPreset[];
  /** The sandbox driver of this worker and the snapshots it can boot. */
  sandboxDriver: LocalSandboxDriver;
  sandboxBrowsers: SandboxBrowsers;
  sandboxSnapshots: readonly Snapshot[];
  /** SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK (development only): also governs MCP endpoints. */
  outboundAllowPrivateNetwork: boolean;
  /** SVC_WEBHOOK_BATCH_GATHER_MS: how long a delivered batch that was not full waits for more events. */
  webhookBatchGatherMs: number;
  /** SVC_CURRENCY: the currency a spent budget's explanation names. */
  currency: string;
  /** DNS for webhook and MCP destinations; the system resolver by default. */
  webhookLookup?: DestinationLookup;
  /** The worker's shared event tail (webhook activities linger on it for new events). */
  eventTail?: ProjectEventTail;
  /** Where model calls publish their live output. */
  messageDeltas: MessageDeltaBus;
  /** SVC_PROJECT_RUNNING_RUNS_LIMIT and how a run waiting under it is woken. */
  gate: AdmissionGate;
  /** How a retried step frees its run from a dead worker's sticky queue (temporal/run-recovery.ts). */
  runRecovery?: RunRecovery;
  /** Where a run's trace is (temporal/run-trace-context.ts); only when the worker traces. */
  runTraceContext?: RunTraceContextLookup;
  /** How the runs a schedule's firing queues reach the runtime (as the API's do). */
  runStarter: RunStarter;
  /** SVC_PROJECT_UNSETTLED_RUNS_LIMIT: a firing queues a run as a request would, under the same quota. */
  unsettledRunsLimit: number | null;
  /** SVC_RUN_DELEGATION_PARALLELISM: child runs one run may have going at once. */
  delegationParallelism?: number;
  /** Removes the Temporal Schedule of a schedule whose firing finds it gone. */
  scheduleBackend: ScheduleBackend | null;
};

/**
 * The platform's own tools: the session's sandbox tools, the Skill loader, the memory tools, and MCP tools by
 * their `mcp__` prefix (MCP endpoints follow the webhooks' address rules and development
 * setting, docs/decisions/mcp-endpoints.md).
 */
function builtInPlatformTools(deps: ActivityDeps, sandbox: Omit<Parameters<typeof createSandboxToolRunner>[0], 'browsers'>): BuiltInPlatformTool[] {
  const system = sandbox.system;
  const sandboxTools = createSandboxToolRunner({ ...sandbox, browsers: deps.sandboxBrowsers });
  const mcp = { keyring: deps.keyring, allowPrivateNetwork: deps.outboundAllowPrivateNetwork, ...(deps.webhookLookup ? { lookup: deps.webhookLookup } : {}) };
  return [
    { matches: sandboxTools.handles, run: async (call) => fromAnswer(await sandboxTools.run(call)) },
    { matches: (name) => name === LOAD_SKILL_TOOL_NAME, run: (call) => answerLoadSkill({ ctx: system(), input: call }) },
    { matches: (name) => MEMORY_TOOL_NAME_SET.has(name), run: (call) => answerRunMemoryTool({ ctx: system(), input: call }) },
    {
      matches: (name) => name.startsWith(MCP_TOOL_PREFIX),
      run: async (call) => {
        const { outcome, execution } = await callMcpTool({ ctx: system(), deps: mcp, input: call });
        return execution ? { outcome, execution } : { outcome };
      },
    },
  ];
}

/**
 * Every activity the runtime worker registers, wired once per worker process. Each one's errors
 * are classified in one place (activities/failures.ts).
 */
export function createActivities(deps: ActivityDeps) {
  const system = () => systemContext({ db: deps.database.db, logger: deps.logger, clock: deps.clock });
  const snapshots = new Map(deps.sandboxSnapshots.map((snapshot) => [snapshot.id.toLowerCase(), snapshot]));
  const sandbox = { system, driver: deps.sandboxDriver, snapshots };
  // Storage endpoints follow the webhooks' address policy and DNS seam (adapters/storage/s3-client.ts).
  const storagePolicy = { allowPrivateNetwork: deps.outboundAllowPrivateNetwork, ...(deps.webhookLookup ? { lookup: deps.webhookLookup } : {}) };
  const workspaceSteps = createWorkspaceSteps({ ...sandbox, keyring: deps.keyring, storagePolicy });
  return classifyFailures({
    ...createRunActivities({
      system,
      keyring: deps.keyring,
      modelBaseUrls: deps.modelBaseUrls,
      deploymentPresets: deps.deploymentPresets,
      currency: deps.currency,
      gate: deps.gate,
      messageDeltas: deps.messageDeltas,
      ...(deps.runRecovery ? { recovery: deps.runRecovery } : {}),
    }),
    ...createToolActivities({
      system,
      keyring: deps.keyring,
      gate: deps.gate,
      ...(deps.runRecovery ? { recovery: deps.runRecovery } : {}),
      ...(deps.delegationParallelism ? { delegationParallelism: deps.delegationParallelism } : {}),
      platformTools: createPlatformToolRegistry({ handlers: deps.platformTools, builtIns: builtInPlatformTools(deps, sandbox) }),
    }),
    prepareRunWorkspace: workspaceSteps.prepareRunWorkspace,
    backupWorkspace: workspaceSteps.backupWorkspace,
    ...createScheduleActivities({
      system,
      runs: { runStarter: deps.runStarter, keyring: deps.keyring, unsettledRunsLimit: deps.unsettledRunsLimit, storagePolicy },
      scheduleBackend: deps.scheduleBackend,
    }),
    ...createWebhookActivities({
      system,
      keyring: deps.keyring,
      allowPrivateNetwork: deps.outboundAllowPrivateNetwork,
      gatherMs: deps.webhookBatchGatherMs,
      ...(deps.webhookLookup ? { lookup: deps.webhookLookup } : {}),
      ...(deps.eventTail ? { eventTail: deps.eventTail } : {}),
      ...(deps.runTraceContext ? { runTraceContext: deps.runTraceContext } : {}),
    }),
  });
}
