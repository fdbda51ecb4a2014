import * as v from 'valibot';
import { grouped } from './paths.ts';
import { isPlainObject } from './json.ts';
import type { ObjectSchema } from './tool-schema-policy.ts';

/**
 * The structure of an agent version config (spec 1 "Agent version config"): field types,
 * ranges, patterns and defaults. Strict at every level: an unknown key is a 400 with its path.
 * Rules that span fields (uniqueness, the mounted tool namespace, sandbox requirements) and the
 * tool-schema dialect are applied afterwards by `parseAgentConfig`.
 */

export const AGENT_CONFIG_LIMITS = {
  systemPromptMaxLength: 100_000,
  modelPresetMaxLength: 200,
  descriptionMaxLength: 2_000,
  harnessOperationsMax: 32,
  instructionsMaxLength: 100_000,
  harnessTimeoutMs: { min: 1_000, max: 300_000 },
  delegatesMax: 32,
  maxParallel: { min: 1, max: 8 },
  maxTurns: { min: 1, max: 256 },
  timeoutMsMin: 1_000,
  timeoutMsDefault: 60_000,
  sandboxProviderMaxLength: 200,
  compactAtTokens: { min: 1_000, max: 10_000_000 },
  keepRecentTurns: { min: 1, max: 100 },
  maxCompactionsPerRun: { min: 0, max: 20 },
} as const;

/** Tool names: the character set every supported model provider accepts, up to spec's 200 chars. */
export const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,199}$/;
/** Harness Operation keys (spec) and delegate keys (same rule, chosen for consistency). */
export const OPERATION_KEY_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
/** MCP namespaces: lowercase alphanumeric segments joined by single underscores, 1-64 chars. */
export const MCP_NAMESPACE_PATTERN = /^(?=.{1,64}$)[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

export const SANDBOX_CAPABILITIES = ['filesystem_read', 'filesystem_write', 'shell', 'browser'] as const;
export type SandboxCapability = (typeof SANDBOX_CAPABILITIES)[number];

const text = (max: number) => {
  const message = `must be a string of 1-${grouped(max)} characters`;
  return v.pipe(v.string(message), v.minLength(1, message), v.maxLength(max, message));
};

const integer = (min: number, max?: number) => {
  const message = max === undefined ? `must be an integer of at least ${grouped(min)}` : `must be an integer from ${grouped(min)} to ${grouped(max)}`;
  // Above MAX_SAFE_INTEGER, integers stop round-tripping exactly through JSON and Postgres.
  const ceiling = max ?? Number.MAX_SAFE_INTEGER;
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(ceiling, message));
};

/** UUIDs are stored lowercase so equal ids compare, hash and look up equal. */
const Uuid = v.pipe(v.string('must be a UUID'), v.uuid('must be a UUID'), v.toLowerCase());

const pattern = (regex: RegExp, message: string) => v.pipe(v.string(message), v.regex(regex, message));

const list = <T extends v.GenericSchema>(item: T, max?: number) =>
  max === undefined
    ? v.optional(v.array(item, 'must be an array'), () => [])
    : v.optional(v.pipe(v.array(item, 'must be an array'), v.maxLength(max, `must hold at most ${max} entries`)), () => []);

/** Narrowed to a normalized `ObjectSchema` by tool-schema-policy before `parseAgentConfig` returns. */
const JsonSchemaObject = v.custom<ObjectSchema>(isPlainObject, 'must be a JSON Schema object');

export const ToolDefinition = v.strictObject(
  {
    schemaVersion: v.optional(v.literal(1, 'must be 1'), 1),
    name: pattern(TOOL_NAME_PATTERN, 'must be 1-200 characters of letters, digits, "_" and "-", starting with a letter or "_"'),
    description: text(AGENT_CONFIG_LIMITS.descriptionMaxLength),
    owner: v.picklist(['caller', 'platform'], 'must be "caller" or "platform"'),
    approval: v.picklist(['never', 'always'], 'must be "never" or "always"'),
    inputSchema: JsonSchemaObject,
    outputSchema: JsonSchemaObject,
  },
  'must be an object',
);
export type ToolDefinition = v.InferOutput<typeof ToolDefinition>;

export const HarnessOperation = v.strictObject(
  {
    key: pattern(OPERATION_KEY_PATTERN, 'must be 1-64 characters of a-z, 0-9, "_" and "-", starting with a letter'),
    description: text(AGENT_CONFIG_LIMITS.descriptionMaxLength),
    instructions: text(AGENT_CONFIG_LIMITS.instructionsMaxLength),
    resultSchema: JsonSchemaObject,
    timeoutMs: integer(AGENT_CONFIG_LIMITS.harnessTimeoutMs.min, AGENT_CONFIG_LIMITS.harnessTimeoutMs.max),
  },
  'must be an object',
);
export type HarnessOperation = v.InferOutput<typeof HarnessOperation>;

/**
 * A delegate: another agent at an exact version (`agentVersionId`), or `self: true`, a copy of
 * the coordinator itself (its own version, without delegation tools: depth limit 1); exactly one
 * of the two (checked in parse.ts).
 */
export const Delegate = v.strictObject(
  {
    key: pattern(OPERATION_KEY_PATTERN, 'must be 1-64 characters of a-z, 0-9, "_" and "-", starting with a letter'),
    description: text(AGENT_CONFIG_LIMITS.descriptionMaxLength),
    agentVersionId: v.optional(Uuid),
    self: v.optional(v.literal(true, 'must be true (or left out)')),
    maxParallel: integer(AGENT_CONFIG_LIMITS.maxParallel.min, AGENT_CONFIG_LIMITS.maxParallel.max),
  },
  'must be an object',
);
export type Delegate = v.InferOutput<typeof Delegate>;

export const McpBinding = v.strictObject(
  {
    toolsetVersionId: Uuid,
    credentialPolicyVersionId: Uuid,
    namespace: pattern(MCP_NAMESPACE_PATTERN, 'must be 1-64 characters: lowercase letters and digits in segments joined by single "_", starting with a letter'),
  },
  'must be an object',
);
export type McpBinding = v.InferOutput<typeof McpBinding>;

/**
 * `provider` must be present; null is allowed only while `enabled` is false (checked after
 * parsing), so the default below can be written out explicitly and re-published unchanged.
 */
export const SandboxPolicy = v.strictObject(
  {
    enabled: v.boolean('must be true or false'),
    provider: v.nullable(text(AGENT_CONFIG_LIMITS.sandboxProviderMaxLength)),
    snapshotId: v.optional(v.nullable(Uuid), null),
    network: v.optional(v.picklist(['none', 'restricted'], 'must be "none" or "restricted"'), 'none'),
    capabilities: v.array(v.picklist(SANDBOX_CAPABILITIES, `must be one of ${SANDBOX_CAPABILITIES.join(', ')}`), 'must be an array'),
  },
  'must be an object',
);
export type SandboxPolicy = v.InferOutput<typeof SandboxPolicy>;

/** The policy of a config that omits `sandbox`: no sandbox, no egress, no sandbox tools. */
export function defaultSandboxPolicy(): SandboxPolicy {
  return { enabled: false, provider: null, snapshotId: null, network: 'none', capabilities: [] };
}

export const AgentLimits = v.strictObject(
  {
    maxTurns: integer(AGENT_CONFIG_LIMITS.maxTurns.min, AGENT_CONFIG_LIMITS.maxTurns.max),
    timeoutMs: v.optional(integer(AGENT_CONFIG_LIMITS.timeoutMsMin), AGENT_CONFIG_LIMITS.timeoutMsDefault),
  },
  'must be an object',
);
export type AgentLimits = v.InferOutput<typeof AgentLimits>;

/**
 * How long conversations are kept inside the model's context window (docs/decisions/context-compaction.md).
 * Every field is optional and has no stored default, so a config without it keeps its content
 * hash: the runtime resolves the defaults (domain/runs/context-policy.ts).
 */
export const ContextPolicy = v.strictObject(
  {
    compactAtTokens: v.optional(v.nullable(integer(AGENT_CONFIG_LIMITS.compactAtTokens.min, AGENT_CONFIG_LIMITS.compactAtTokens.max))),
    keepRecentTurns: v.optional(integer(AGENT_CONFIG_LIMITS.keepRecentTurns.min, AGENT_CONFIG_LIMITS.keepRecentTurns.max)),
    maxCompactionsPerRun: v.optional(integer(AGENT_CONFIG_LIMITS.maxCompactionsPerRun.min, AGENT_CONFIG_LIMITS.maxCompactionsPerRun.max)),
    summaryPreset: v.optional(text(AGENT_CONFIG_LIMITS.modelPresetMaxLength)),
  },
  'must be an object',
);
export type ContextPolicy = v.InferOutput<typeof ContextPolicy>;

export const AgentConfig = v.strictObject(
  {
    systemPrompt: text(AGENT_CONFIG_LIMITS.systemPromptMaxLength),
    modelPreset: text(AGENT_CONFIG_LIMITS.modelPresetMaxLength),
    tools: list(ToolDefinition),
    harnessOperations: list(HarnessOperation, AGENT_CONFIG_LIMITS.harnessOperationsMax),
    skillVersionIds: list(Uuid),
    mcpBindings: list(McpBinding),
    delegates: list(Delegate, AGENT_CONFIG_LIMITS.delegatesMax),
    sandbox: v.optional(SandboxPolicy, defaultSandboxPolicy),
    limits: AgentLimits,
    context: v.optional(ContextPolicy),
  },
  'must be an object',
);
/** A parsed config: every default applied, every tool schema normalized. */
export type AgentConfig = v.InferOutput<typeof AgentConfig>;
