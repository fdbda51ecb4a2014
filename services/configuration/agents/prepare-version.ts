import { hash } from 'node:crypto';
import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { canonicalAgentConfig, checkAgentConfigReferences, parseAgentConfig, referencedResources } from '../../../domain/agent-config/index.ts';
import { assertHasScopes, type Scope } from '../../../domain/scopes.ts';
import type { Snapshot } from '../../../domain/sandbox/snapshot-registry.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { DeploymentPreset } from '../model-presets/index.ts';
import { loadPresetFacts } from '../model-presets/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { loadMcpFacts } from '../mcp-toolsets/index.ts';
import { loadSkillVersionFacts } from '../skills/index.ts';
import { loadSandboxProviderFacts } from '../sandbox-providers/index.ts';
import { loadDelegateFacts } from './delegate-facts.ts';

export type PreparedVersion = { config: AgentConfig; contentHash: string };

/** What publication needs from the process: presets and snapshots loaded at start, the keyring. */
export type PublicationDeps = {
  deploymentPresets: readonly DeploymentPreset[];
  sandboxSnapshots: readonly Snapshot[];
  keyring: Pick<CredentialKeyring, 'configured'>;
};

/**
 * Everything agent publication checks before any row is written: the config's structure and
 * tool-schema policy, the extra scopes its bindings need (`skill:bind`, `mcp:bind`), and every
 * referenced preset, Skill version, delegate version and MCP toolset and policy version. Returns the config with defaults
 * applied and its content hash (lowercase SHA-256 of the canonical serialization).
 */
export async function prepareAgentVersion(
  ctx: ServiceContext,
  deps: PublicationDeps,
  input: { config: unknown; root: string; agentId: string | null },
): Promise<PreparedVersion> {
  const actor = requireActor(ctx);
  const config = parseAgentConfig(input.config, { root: input.root });
  const extraScopes: Scope[] = [];
  if (config.skillVersionIds.length > 0) extraScopes.push('skill:bind');
  if (config.mcpBindings.length > 0) extraScopes.push('mcp:bind');
  assertHasScopes(actor.scopes, extraScopes);

  const refs = referencedResources(config);
  // One after another: `ctx.db` may be the request's transaction (a single connection).
  const presets = await loadPresetFacts(ctx, deps, [refs.presetKey, ...(refs.summaryPresetKey === null ? [] : [refs.summaryPresetKey])]);
  const skillVersions = await loadSkillVersionFacts(ctx.db, { organizationId: actor.organizationId, ids: refs.skillVersionIds });
  const delegateVersions = await loadDelegateFacts(ctx.db, { organizationId: actor.organizationId, ids: refs.delegateVersionIds });
  const mcp = await loadMcpFacts(ctx.db, {
    organizationId: actor.organizationId,
    toolsetVersionIds: refs.mcpToolsetVersionIds,
    policyVersionIds: refs.mcpPolicyVersionIds,
  });
  const sandboxProviders = await loadSandboxProviderFacts(ctx.db, {
    organizationId: actor.organizationId,
    keys: config.sandbox.enabled && config.sandbox.provider !== null ? [config.sandbox.provider] : [],
    snapshots: deps.sandboxSnapshots,
  });
  checkAgentConfigReferences(
    config,
    {
      projectId: actor.projectId,
      agentId: input.agentId,
      presets,
      skillVersions,
      delegateVersions,
      sandboxProviders,
      credentialEncryptionConfigured: deps.keyring.configured,
      mcp,
    },
    { root: input.root },
  );
  return { config, contentHash: hash('sha256', canonicalAgentConfig(config)) };
}
