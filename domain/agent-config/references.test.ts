import { describe, expect, it } from 'vitest';
import type {
  DelegateVersionFact,
  McpFacts,
  McpPolicyVersionFact,
  McpToolsetVersionFact,
  PresetFact,
  PublicationFacts,
  SandboxProviderFact,
  SkillVersionFact,
} from './facts.ts';
import { parseAgentConfig } from './parse.ts';
import { checkAgentConfigReferences, referencedResources } from './references.ts';
import { delegate, expectBadRequest, ids, validConfig, type Json } from './test-fixtures.ts';

const projectId = 'p0000000-0000-4000-8000-000000000000';
const agentId = 'a0000000-0000-4000-8000-000000000000';

function skillFact(skillVersionId: string, extra: Partial<SkillVersionFact> = {}): SkillVersionFact {
  return {
    skillVersionId,
    skillId: `skill-of-${skillVersionId}`,
    projectId,
    name: `skill-${skillVersionId.slice(0, 4)}`,
    skillEnabled: true,
    skillRemoved: false,
    status: 'active',
    ...extra,
  };
}

function delegateFact(agentVersionId: string, extra: Partial<DelegateVersionFact> = {}): DelegateVersionFact {
  return {
    agentVersionId,
    agentId: `agent-of-${agentVersionId}`,
    agentKey: 'research-bot',
    projectId,
    agentArchived: false,
    sandbox: { enabled: true, provider: 'vendor-main', snapshotId: ids.snapshot, network: 'none' },
    ...extra,
  };
}

function sandboxFact(extra: Partial<SandboxProviderFact> = {}): SandboxProviderFact {
  return { key: 'vendor-main', activeSnapshotIds: new Set([ids.snapshot]), allowlistEmpty: false, ...extra };
}

function mcpFacts(): McpFacts {
  const toolset: McpToolsetVersionFact = {
    toolsetVersionId: ids.toolset,
    projectId,
    toolsetKey: 'crm-tools',
    serverEndpointUrl: 'https://mcp.example.com/crm/mcp',
    serverKey: 'crm',
    remoteToolNames: ['lookup_customer', 'create-note'],
  };
  const policy: McpPolicyVersionFact = {
    policyVersionId: ids.policy,
    policyKey: 'crm-policy',
    active: true,
    exactOrigin: 'https://mcp.example.com',
    pathPrefix: '/crm',
  };
  return { toolsetVersions: new Map([[ids.toolset, toolset]]), policyVersions: new Map([[ids.policy, policy]]) };
}

const editToolset = (facts: Facts, extra: Partial<McpToolsetVersionFact>) => {
  const mcp = facts.mcp!;
  (mcp.toolsetVersions as Map<string, McpToolsetVersionFact>).set(ids.toolset, { ...mcp.toolsetVersions.get(ids.toolset)!, ...extra });
};
const editPolicy = (facts: Facts, extra: Partial<McpPolicyVersionFact>) => {
  const mcp = facts.mcp!;
  (mcp.policyVersions as Map<string, McpPolicyVersionFact>).set(ids.policy, { ...mcp.policyVersions.get(ids.policy)!, ...extra });
};

/** Facts under which `validConfig()` passes every reference check. */
function validFacts(): PublicationFacts {
  const preset: PresetFact = { key: 'default', origin: 'deployment', archived: false, available: true };
  return {
    projectId,
    agentId,
    presets: new Map([['default', preset]]),
    skillVersions: new Map([ids.skillA, ids.skillB].map((id) => [id, skillFact(id)])),
    delegateVersions: new Map([ids.childVersion, ids.otherChildVersion].map((id) => [id, delegateFact(id)])),
    sandboxProviders: new Map([['vendor-main', sandboxFact()]]),
    credentialEncryptionConfigured: true,
    mcp: mcpFacts(),
  };
}

type Facts = {
  presets: Map<string, PresetFact>;
  skillVersions: Map<string, SkillVersionFact>;
  delegateVersions: Map<string, DelegateVersionFact>;
  sandboxProviders: Map<string, SandboxProviderFact> | null;
} & PublicationFacts;
type Case = (config: Json, facts: Facts) => void;

const editSkill = (facts: Facts, id: string, extra: Partial<SkillVersionFact>) => facts.skillVersions.set(id, { ...facts.skillVersions.get(id)!, ...extra });
const editChild = (facts: Facts, extra: Partial<DelegateVersionFact>) =>
  facts.delegateVersions.set(ids.childVersion, { ...facts.delegateVersions.get(ids.childVersion)!, ...extra });
const editChildSandbox = (facts: Facts, extra: Partial<DelegateVersionFact['sandbox']>) =>
  editChild(facts, { sandbox: { ...facts.delegateVersions.get(ids.childVersion)!.sandbox, ...extra } });

function run(mutate: Case, root?: string): void {
  const config = validConfig();
  const facts = validFacts() as Facts;
  mutate(config, facts);
  const parsed = parseAgentConfig(config, root ? { root } : {});
  checkAgentConfigReferences(parsed, facts, root ? { root } : {});
}

describe('checkAgentConfigReferences accepts', () => {
  const accepted: Array<[string, Case]> = [
    ['the valid config', () => {}],
    ['a project-approved preset', (_c, f) => f.presets.set('default', { key: 'default', origin: 'project', archived: false, available: true })],
    ['a deprecated Skill version', (_c, f) => editSkill(f, ids.skillA, { status: 'deprecated' })],
    ['two Skills with different names', (c) => (c.skillVersionIds = [ids.skillA, ids.skillB])],
    ['two delegates sharing the coordinator sandbox', (c) => c.delegates.push(delegate('writer', ids.otherChildVersion))],
    ['a child with other sandbox capabilities (not part of the identity)', (c) => (c.sandbox.capabilities = ['browser'])],
    [
      'disabled sandboxes on both sides',
      (c, f) => ((c.sandbox = { enabled: false, provider: null, capabilities: [] }), editChildSandbox(f, { enabled: false, provider: null, snapshotId: null })),
    ],
    [
      "a loader's '' provider for a child without one",
      (c, f) => ((c.sandbox = { enabled: false, provider: null, capabilities: [] }), editChildSandbox(f, { enabled: false, provider: '', snapshotId: null })),
    ],
    ['a first version (agent id not yet known)', (_c, f) => Object.assign(f, { agentId: null })],
    ['no delegates, Skills or tools at all', (c) => Object.assign(c, { delegates: [], skillVersionIds: [], tools: [] })],
    ['a restricted sandbox on a connection with an allowlist', (c, f) => ((c.sandbox.network = 'restricted'), editChildSandbox(f, { network: 'restricted' }))],
    ['sandbox facts not loaded (structure only)', (_c, f) => Object.assign(f, { sandboxProviders: null, credentialEncryptionConfigured: false })],
    ['MCP facts not loaded (structure only)', (_c, f) => Object.assign(f, { mcp: null })],
    ['a policy whose prefix is the whole origin', (_c, f) => editPolicy(f, { pathPrefix: '/' })],
    ['a policy prefix with a trailing slash', (_c, f) => editPolicy(f, { pathPrefix: '/crm/' })],
    [
      'a disabled sandbox without encryption or connections',
      (c, f) => (
        (c.sandbox = { enabled: false, provider: null, capabilities: [] }),
        Object.assign(f, { delegateVersions: new Map(), sandboxProviders: new Map(), credentialEncryptionConfigured: false }),
        (c.delegates = [])
      ),
    ],
  ];

  it.each(accepted)('%s', (_name, mutate) => {
    expect(() => run(mutate)).not.toThrow();
  });
});

describe('checkAgentConfigReferences rejects', () => {
  const rejected: Array<[string, Case, string, RegExp]> = [
    ['an unknown model preset', (c) => (c.modelPreset = 'missing'), 'config.modelPreset', /neither a deployment preset nor approved/],
    [
      'an archived model preset',
      (_c, f) => f.presets.set('default', { key: 'default', origin: 'project', archived: true, available: true }),
      'config.modelPreset',
      /archived/,
    ],
    [
      'an unavailable model preset',
      (_c, f) => f.presets.set('default', { key: 'default', origin: 'project', archived: false, available: false }),
      'config.modelPreset',
      /unavailable/,
    ],
    ['an unknown Skill version', (c) => c.skillVersionIds.push(ids.toolset), 'config.skillVersionIds[1]', /does not exist in this project/],
    [
      "another project's Skill version",
      (_c, f) => editSkill(f, ids.skillA, { projectId: 'other' }),
      'config.skillVersionIds[0]',
      /does not exist in this project/,
    ],
    ['a removed Skill', (_c, f) => editSkill(f, ids.skillA, { skillRemoved: true }), 'config.skillVersionIds[0]', /removed/],
    ['a disabled Skill', (_c, f) => editSkill(f, ids.skillA, { skillEnabled: false }), 'config.skillVersionIds[0]', /disabled/],
    ['a revoked Skill version', (_c, f) => editSkill(f, ids.skillA, { status: 'revoked' }), 'config.skillVersionIds[0]', /revoked/],
    [
      'two versions of one Skill',
      (c, f) => ((c.skillVersionIds = [ids.skillA, ids.skillB]), editSkill(f, ids.skillB, { skillId: `skill-of-${ids.skillA}` })),
      'config.skillVersionIds[1]',
      /second version/,
    ],
    [
      'two Skills with one name',
      (c, f) => ((c.skillVersionIds = [ids.skillA, ids.skillB]), editSkill(f, ids.skillB, { name: skillFact(ids.skillA).name })),
      'config.skillVersionIds[1]',
      /names must be unique/,
    ],
    [
      'an unknown delegate version',
      (c) => c.delegates.push(delegate('writer', ids.toolset)),
      'config.delegates[1].agentVersionId',
      /not an agent version in this project/,
    ],
    [
      "another project's agent version",
      (_c, f) => editChild(f, { projectId: 'other' }),
      'config.delegates[0].agentVersionId',
      /not an agent version in this project/,
    ],
    [
      'a deleted child agent',
      (_c, f) => editChild(f, { agentArchived: true }),
      'config.delegates[0].agentVersionId',
      /agent "research-bot", which was deleted/,
    ],
    ['self-delegation', (_c, f) => editChild(f, { agentId }), 'config.delegates[0].agentVersionId', /cannot delegate to itself/],
    [
      'a child with the sandbox disabled',
      (_c, f) => editChildSandbox(f, { enabled: false }),
      'config.delegates[0].agentVersionId',
      /delegate "researcher" \(agent "research-bot"\) has a different sandbox enabled/,
    ],
    [
      'a child on another provider',
      (_c, f) => editChildSandbox(f, { provider: 'vendor-b' }),
      'config.delegates[0].agentVersionId',
      /sandbox provider: "vendor-b"/,
    ],
    ['a child on another snapshot', (_c, f) => editChildSandbox(f, { snapshotId: ids.skillB }), 'config.delegates[0].agentVersionId', /sandbox snapshotId/],
    [
      'a child with another network policy',
      (_c, f) => editChildSandbox(f, { network: 'restricted' }),
      'config.delegates[0].agentVersionId',
      /sandbox network: "restricted" instead of the coordinator's "none"/,
    ],
    [
      'an unknown sandbox provider',
      (_c, f) => f.sandboxProviders!.clear(),
      'config.sandbox.provider',
      /sandbox provider "vendor-main", which is not a connection of this organization/,
    ],
    ['no credential encryption', (_c, f) => Object.assign(f, { credentialEncryptionConfigured: false }), 'config.sandbox', /credential encryption/],
    [
      'a snapshot not active on the connection',
      (_c, f) => f.sandboxProviders!.set('vendor-main', sandboxFact({ activeSnapshotIds: new Set() })),
      'config.sandbox.snapshotId',
      /not active on sandbox provider "vendor-main"/,
    ],
    [
      'restricted egress with an empty allowlist',
      (c, f) => (
        (c.sandbox.network = 'restricted'),
        editChildSandbox(f, { network: 'restricted' }),
        f.sandboxProviders!.set('vendor-main', sandboxFact({ allowlistEmpty: true }))
      ),
      'config.sandbox.network',
      /allows no domains or CIDRs/,
    ],
    [
      'an unknown toolset version',
      (_c, f) => f.mcp!.toolsetVersions instanceof Map && (f.mcp!.toolsetVersions as Map<string, unknown>).clear(),
      'config.mcpBindings[0].toolsetVersionId',
      /does not exist in this project/,
    ],
    [
      "another project's toolset version",
      (_c, f) => editToolset(f, { projectId: 'other' }),
      'config.mcpBindings[0].toolsetVersionId',
      /does not exist in this project/,
    ],
    [
      'an unknown policy version',
      (_c, f) => (f.mcp!.policyVersions as Map<string, unknown>).clear(),
      'config.mcpBindings[0].credentialPolicyVersionId',
      /does not exist in this organization/,
    ],
    ['an inactive policy', (_c, f) => editPolicy(f, { active: false }), 'config.mcpBindings[0].credentialPolicyVersionId', /not active/],
    [
      'a policy of another origin',
      (_c, f) => editPolicy(f, { exactOrigin: 'https://other.example.com' }),
      'config.mcpBindings[0].credentialPolicyVersionId',
      /do not contain the endpoint of MCP server "crm"/,
    ],
    [
      'a policy of another port',
      (_c, f) => editPolicy(f, { exactOrigin: 'https://mcp.example.com:8443' }),
      'config.mcpBindings[0].credentialPolicyVersionId',
      /do not contain/,
    ],
    [
      'a policy prefix that only shares characters',
      (_c, f) => editPolicy(f, { pathPrefix: '/cr' }),
      'config.mcpBindings[0].credentialPolicyVersionId',
      /do not contain/,
    ],
    [
      'a remote tool whose mounted name is not a tool name',
      (_c, f) => editToolset(f, { remoteToolNames: ['lookup.customer'] }),
      'config.mcpBindings[0].toolsetVersionId',
      /"mcp__crm__lookup.customer" is not a valid tool name/,
    ],
    [
      'a disabled child that still names a provider',
      (c, f) => ((c.sandbox.enabled = false), editChildSandbox(f, { enabled: false, provider: 'vendor-b' })),
      'config.delegates[0].agentVersionId',
      /sandbox provider/,
    ],
  ];

  it.each(rejected)('%s', (_name, mutate, path, message) => {
    expectBadRequest(() => run(mutate), path, message);
  });

  it('names the child in details and honours the root', () => {
    try {
      run((_c, f) => editChildSandbox(f, { network: 'restricted' }), 'initialConfig');
      expect.unreachable();
    } catch (error) {
      expect((error as { details: unknown }).details).toEqual({
        path: 'initialConfig.delegates[0].agentVersionId',
        delegateKey: 'researcher',
        agentKey: 'research-bot',
        field: 'network',
      });
    }
  });
});

describe('referencedResources', () => {
  it('lists the preset, Skill versions and delegate versions in authored order', () => {
    const config = validConfig();
    config.skillVersionIds = [ids.skillB, ids.skillA];
    config.delegates.push(delegate('writer', ids.otherChildVersion.toUpperCase()));
    expect(referencedResources(parseAgentConfig(config))).toEqual({
      presetKey: 'default',
      summaryPresetKey: null,
      skillVersionIds: [ids.skillB, ids.skillA],
      delegateVersionIds: [ids.childVersion, ids.otherChildVersion],
      mcpToolsetVersionIds: [ids.toolset],
      mcpPolicyVersionIds: [ids.policy],
    });
  });
});
