/** Agent version config: parsing, tool-schema policy, reference checks, canonical form. */
export {
  AGENT_CONFIG_LIMITS,
  MCP_NAMESPACE_PATTERN,
  OPERATION_KEY_PATTERN,
  SANDBOX_CAPABILITIES,
  TOOL_NAME_PATTERN,
  defaultSandboxPolicy,
} from './config-schema.ts';
export type {
  AgentConfig,
  AgentLimits,
  ContextPolicy,
  Delegate,
  HarnessOperation,
  McpBinding,
  SandboxCapability,
  SandboxPolicy,
  ToolDefinition,
} from './config-schema.ts';
export { parseAgentConfig, type ParseOptions } from './parse.ts';
export { checkAgentConfigReferences, referencedResources, type ReferencedResources } from './references.ts';
export { canonicalAgentConfig } from './canonical.ts';
export { MCP_TOOL_PREFIX, mcpToolName, RESERVED_TOOL_NAMES, SANDBOX_TOOLS, sandboxToolNames, toolsOf, type ToolSummary } from './tools.ts';
export {
  PROPERTY_NAME_PATTERN,
  RESERVED_PROPERTY_NAMES,
  SCHEMA_TYPES,
  STRING_FORMATS,
  TOOL_SCHEMA_LIMITS,
  normalizeObjectSchema,
  type ObjectSchema,
  type SchemaNode,
  type SchemaType,
} from './tool-schema-policy.ts';
export { isSensitivePropertyName, normalizePropertyName, sensitiveWordIn } from './sensitive-names.ts';
export { DEFAULT_ROOT } from './paths.ts';
export type {
  DelegateVersionFact,
  McpFacts,
  McpPolicyVersionFact,
  McpToolsetVersionFact,
  PresetFact,
  PublicationFacts,
  SandboxPolicyFact,
  SandboxProviderFact,
  SkillVersionFact,
} from './facts.ts';
