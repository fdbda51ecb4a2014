/**
 * What agent publication needs to know about the resources a config references, gathered by
 * services from the database and handed to the pure checks in this folder. Each map holds an
 * entry for every referenced id or key that exists in the caller's organization (absent = unknown).
 */

export type PresetFact = {
  key: string;
  /** `deployment` presets come from SVC_DEPLOYMENT_PRESETS_FILE; `project` ones were approved in the project. */
  origin: 'deployment' | 'project';
  archived: boolean;
  /** False when the preset cannot run (for example its provider connection was removed). */
  available: boolean;
};

export type SkillVersionFact = {
  skillVersionId: string;
  skillId: string;
  projectId: string;
  /** The Skill's version-content `name` (must be unique within one agent version). */
  name: string;
  skillEnabled: boolean;
  skillRemoved: boolean;
  status: 'active' | 'deprecated' | 'revoked';
};

export type SandboxPolicyFact = {
  enabled: boolean;
  /** The child's `sandbox.provider`; null (or '' from older loaders) when it names none. */
  provider: string | null;
  snapshotId: string | null;
  network: 'none' | 'restricted';
};

export type SandboxProviderFact = {
  key: string;
  /** Snapshot ids the connection reports active. */
  activeSnapshotIds: ReadonlySet<string>;
  /** Both `allowedDomains` and `allowedCidrs` are empty (no `restricted` egress possible). */
  allowlistEmpty: boolean;
};

export type DelegateVersionFact = {
  agentVersionId: string;
  agentId: string;
  agentKey: string;
  projectId: string;
  agentArchived: boolean;
  sandbox: SandboxPolicyFact;
};

export type PublicationFacts = {
  projectId: string;
  /** The agent being published to, if it exists yet (a delegate must be another agent). */
  agentId: string | null;
  presets: ReadonlyMap<string, PresetFact>;
  skillVersions: ReadonlyMap<string, SkillVersionFact>;
  delegateVersions: ReadonlyMap<string, DelegateVersionFact>;
  /**
   * The organization's sandbox connections by key, for an enabled sandbox; null skips those
   * checks (callers that only check structure). MCP toolsets arrive in a later issue: null means
   * "not available yet", and only the structure of that config part is checked.
   */
  sandboxProviders: ReadonlyMap<string, SandboxProviderFact> | null;
  /** Whether the server can seal credentials (an enabled sandbox needs it). */
  credentialEncryptionConfigured: boolean;
  /** The toolset and policy versions `mcpBindings` name; null skips those checks (structure only). */
  mcp: McpFacts | null;
};

export type McpToolsetVersionFact = {
  toolsetVersionId: string;
  projectId: string;
  toolsetKey: string;
  /** The pinned server version's endpoint, which the binding's policy must contain. */
  serverEndpointUrl: string;
  serverKey: string;
  /** The remote tool names the version selects. */
  remoteToolNames: string[];
};

export type McpPolicyVersionFact = {
  policyVersionId: string;
  policyKey: string;
  /** false once its credential is revoked. */
  active: boolean;
  exactOrigin: string;
  pathPrefix: string;
};

export type McpFacts = {
  toolsetVersions: ReadonlyMap<string, McpToolsetVersionFact>;
  policyVersions: ReadonlyMap<string, McpPolicyVersionFact>;
};
