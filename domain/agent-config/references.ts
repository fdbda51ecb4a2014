import { policyContains } from '../mcp/policy-scope.ts';
import { TOOL_NAME_PATTERN, type AgentConfig, type McpBinding, type SandboxPolicy } from './config-schema.ts';
import { mcpToolName } from './tools.ts';
import type { DelegateVersionFact, PublicationFacts, SandboxPolicyFact } from './facts.ts';
import { DEFAULT_ROOT, invalid, pathOf } from './paths.ts';

export type ReferencedResources = {
  presetKey: string;
  /** The compaction summary's preset when the config names one of its own. */
  summaryPresetKey: string | null;
  skillVersionIds: string[];
  delegateVersionIds: string[];
  mcpToolsetVersionIds: string[];
  mcpPolicyVersionIds: string[];
};

/** What services must load into `PublicationFacts` for this config, in authored order. */
export function referencedResources(config: AgentConfig): ReferencedResources {
  return {
    presetKey: config.modelPreset,
    summaryPresetKey: config.context?.summaryPreset ?? null,
    skillVersionIds: [...config.skillVersionIds],
    delegateVersionIds: config.delegates.flatMap((delegate) => (delegate.agentVersionId ? [delegate.agentVersionId] : [])),
    mcpToolsetVersionIds: config.mcpBindings.map((binding) => binding.toolsetVersionId),
    mcpPolicyVersionIds: config.mcpBindings.map((binding) => binding.credentialPolicyVersionId),
  };
}

/**
 * Checks what a parsed config references against facts loaded by services: the model preset,
 * every Skill version and every delegate version, including the sandbox identity rule between
 * coordinator and children. Throws a `ValidationError` (`bad_request`) with the path of the
 * first offending reference; resources of another project count as unknown. Sandbox
 * connections and MCP bindings are not checked while their facts are null.
 */
export function checkAgentConfigReferences(config: AgentConfig, facts: PublicationFacts, options: { root?: string } = {}): void {
  const root = options.root ?? DEFAULT_ROOT;
  checkPreset(config.modelPreset, facts, pathOf(root, 'modelPreset'));
  if (config.context?.summaryPreset !== undefined) checkPreset(config.context.summaryPreset, facts, pathOf(root, 'context', 'summaryPreset'));
  checkSkills(config.skillVersionIds, facts, pathOf(root, 'skillVersionIds'));
  checkSandbox(config.sandbox, facts, pathOf(root, 'sandbox'));
  config.delegates.forEach((delegate, index) => {
    // A `self` delegate is the coordinator's own version: nothing to look up, its sandbox is the same.
    if (!delegate.agentVersionId) return;
    const fact = facts.delegateVersions.get(delegate.agentVersionId);
    checkDelegate(delegate.key, fact, config.sandbox, facts, pathOf(root, 'delegates', index, 'agentVersionId'));
  });
  config.mcpBindings.forEach((binding, index) => checkMcpBinding(binding, facts, pathOf(root, 'mcpBindings', index)));
}

/**
 * An MCP binding (spec 1 "MCP binding"): a toolset version of this project, an active policy
 * version whose exact origin and path prefix contain the toolset's server endpoint, and mounted
 * names `mcp__<namespace>__<remote_tool_name>` that are valid tool names.
 */
function checkMcpBinding(binding: McpBinding, facts: PublicationFacts, path: string): void {
  if (facts.mcp === null) return;
  const toolset = facts.mcp.toolsetVersions.get(binding.toolsetVersionId);
  if (!toolset || toolset.projectId !== facts.projectId)
    throw invalid(pathOf(path, 'toolsetVersionId'), `names toolset version ${binding.toolsetVersionId}, which does not exist in this project`);
  const policy = facts.mcp.policyVersions.get(binding.credentialPolicyVersionId);
  if (!policy)
    throw invalid(
      pathOf(path, 'credentialPolicyVersionId'),
      `names credential policy version ${binding.credentialPolicyVersionId}, which does not exist in this organization`,
    );
  if (!policy.active)
    throw invalid(
      pathOf(path, 'credentialPolicyVersionId'),
      `names a version of credential policy "${policy.policyKey}", which is not active (its credential is revoked)`,
    );
  if (!policyContains(policy, toolset.serverEndpointUrl)) {
    throw invalid(
      pathOf(path, 'credentialPolicyVersionId'),
      `names credential policy "${policy.policyKey}", whose origin ${policy.exactOrigin} and path prefix ${policy.pathPrefix} do not contain the endpoint of MCP server "${toolset.serverKey}"`,
    );
  }
  for (const remote of toolset.remoteToolNames) {
    const mounted = mcpToolName(binding.namespace, remote);
    if (!TOOL_NAME_PATTERN.test(mounted)) {
      throw invalid(
        pathOf(path, 'toolsetVersionId'),
        `selects the remote tool "${remote}", whose mounted name "${mounted}" is not a valid tool name (1-200 letters, digits, "_" and "-")`,
      );
    }
  }
}

function checkPreset(key: string, facts: PublicationFacts, path: string): void {
  const preset = facts.presets.get(key);
  if (!preset) throw invalid(path, `names model preset "${key}", which is neither a deployment preset nor approved in this project`);
  if (preset.archived) throw invalid(path, `names model preset "${key}", which is archived`);
  if (!preset.available) throw invalid(path, `names model preset "${key}", which is unavailable (its provider cannot serve it)`);
}

/** Deprecated versions stay bindable; revoked ones cannot be bound again (they stop running too). */
function checkSkills(ids: readonly string[], facts: PublicationFacts, arrayPath: string): void {
  const skills = new Map<string, string>();
  const names = new Map<string, string>();
  ids.forEach((id, index) => {
    const path = pathOf(arrayPath, index);
    const skill = facts.skillVersions.get(id);
    if (!skill || skill.projectId !== facts.projectId) throw invalid(path, `names Skill version ${id}, which does not exist in this project`);
    if (skill.skillRemoved) throw invalid(path, `names a version of a removed Skill`);
    if (!skill.skillEnabled) throw invalid(path, `names a version of Skill "${skill.name}", which is disabled`);
    if (skill.status === 'revoked') throw invalid(path, `names a revoked version of Skill "${skill.name}"`);
    const sameSkill = skills.get(skill.skillId);
    if (sameSkill !== undefined) throw invalid(path, `binds a second version of Skill "${skill.name}", already bound at ${sameSkill}`);
    const sameName = names.get(skill.name);
    if (sameName !== undefined) throw invalid(path, `binds a second Skill named "${skill.name}" (see ${sameName}); Skill names must be unique`);
    skills.set(skill.skillId, path);
    names.set(skill.name, path);
  });
}

/**
 * An enabled sandbox (spec 1 "Sandbox policy") needs a connection of the organization, credential
 * encryption, a snapshot the connection reports active, and a non-empty allowlist under
 * `restricted`. CPU, memory, disk and image come from the snapshot, so nothing else is checked.
 */
function checkSandbox(sandbox: SandboxPolicy, facts: PublicationFacts, path: string): void {
  if (!sandbox.enabled || facts.sandboxProviders === null) return;
  const provider = sandbox.provider === null ? undefined : facts.sandboxProviders.get(sandbox.provider);
  if (!provider) throw invalid(pathOf(path, 'provider'), `names sandbox provider "${sandbox.provider}", which is not a connection of this organization`);
  if (!facts.credentialEncryptionConfigured) throw invalid(path, 'needs platform credential encryption, which this server has not configured');
  if (sandbox.snapshotId === null || !provider.activeSnapshotIds.has(sandbox.snapshotId)) {
    throw invalid(pathOf(path, 'snapshotId'), `names a snapshot that is not active on sandbox provider "${provider.key}"`);
  }
  if (sandbox.network === 'restricted' && provider.allowlistEmpty) {
    throw invalid(
      pathOf(path, 'network'),
      `is restricted, but sandbox provider "${provider.key}" allows no domains or CIDRs; add some to its configuration or use "none"`,
    );
  }
}

function checkDelegate(key: string, fact: DelegateVersionFact | undefined, sandbox: SandboxPolicy, facts: PublicationFacts, path: string): void {
  if (!fact || fact.projectId !== facts.projectId) throw invalid(path, `of delegate "${key}" is not an agent version in this project`);
  const child = { delegateKey: key, agentKey: fact.agentKey };
  if (facts.agentId !== null && fact.agentId === facts.agentId) {
    throw invalid(path, `of delegate "${key}" is a version of this agent; an agent cannot delegate to itself`, child);
  }
  if (fact.agentArchived) throw invalid(path, `of delegate "${key}" belongs to agent "${fact.agentKey}", which was deleted`, child);
  const difference = sandboxDifference(sandbox, fact.sandbox);
  if (difference) {
    throw invalid(
      path,
      `of delegate "${key}" (agent "${fact.agentKey}") has a different sandbox ${difference.field}: ` +
        `${show(difference.child)} instead of the coordinator's ${show(difference.coordinator)}; ` +
        'coordinator and children must share sandbox enabled state, provider, snapshot and network policy',
      { ...child, field: difference.field },
    );
  }
}

type SandboxDifference = { field: 'enabled' | 'provider' | 'snapshotId' | 'network'; coordinator: unknown; child: unknown };

/**
 * Children share the coordinator's workspace sandbox, so the four identity fields must match
 * exactly (also while disabled). Capabilities may differ: each agent mounts its own tools.
 */
function sandboxDifference(coordinator: SandboxPolicy, child: SandboxPolicyFact): SandboxDifference | null {
  // Older fact loaders write '' for "no provider"; a parsed config never holds '', so it means null.
  const childProvider = child.provider === '' ? null : child.provider;
  if (coordinator.enabled !== child.enabled) return { field: 'enabled', coordinator: coordinator.enabled, child: child.enabled };
  if (coordinator.provider !== childProvider) return { field: 'provider', coordinator: coordinator.provider, child: childProvider };
  if (coordinator.snapshotId !== (child.snapshotId?.toLowerCase() ?? null)) {
    return { field: 'snapshotId', coordinator: coordinator.snapshotId, child: child.snapshotId };
  }
  if (coordinator.network !== child.network) return { field: 'network', coordinator: coordinator.network, child: child.network };
  return null;
}

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}
