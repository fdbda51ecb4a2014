import * as v from 'valibot';
import { ValidationError } from '../../../domain/errors.ts';
import { patchedMetadata } from './metadata.ts';
import { renderMultiagent, type CoordinatorView } from './multiagent.ts';
import { renderToolset, TOOLSET_TYPE, toolsetOf, toolsetOfCapabilities, type ToolsetView } from './toolset.ts';

/**
 * Claude Managed Agents agents over ours (docs/decisions/anthropic-compat-agents.md): the
 * request bodies the SDK sends, the config they become, and the agent object rendered back. What
 * cannot be honoured is a 400 naming the field, never ignored.
 */

/** The system prompt of an agent created without one (ours needs 1+ characters); rendered back as `null`. */
export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant.';
/** Turn and execution-time limits of agents created here (a caller-tool wait spends execution time). */
export const COMPAT_LIMITS = { maxTurns: 64, timeoutMs: 6 * 60 * 60 * 1000 } as const;

const Model = v.union([
  v.pipe(v.string(), v.minLength(1)),
  v.strictObject({
    id: v.pipe(v.string(), v.minLength(1)),
    effort: v.optional(v.unknown()),
    speed: v.optional(v.unknown()),
    inference_geo: v.optional(v.unknown()),
  }),
]);
const CustomTool = v.strictObject({
  type: v.literal('custom'),
  name: v.string(),
  description: v.optional(v.string()),
  input_schema: v.record(v.string(), v.unknown()),
  // An extension the SDK passes through: `always_ask` makes the call wait for a tool confirmation.
  permission_policy: v.optional(v.strictObject({ type: v.picklist(['always_ask', 'always_allow']) })),
});
const SkillRef = v.strictObject({ type: v.string(), skill_id: v.string(), version: v.optional(v.nullable(v.union([v.string(), v.number()]))) });

const Fields = {
  name: v.pipe(v.string(), v.minLength(1)),
  description: v.optional(v.nullable(v.string())),
  model: Model,
  system: v.optional(v.nullable(v.string())),
  tools: v.optional(v.nullable(v.array(v.record(v.string(), v.unknown())))),
  mcp_servers: v.optional(v.nullable(v.array(v.unknown()))),
  skills: v.optional(v.nullable(v.array(v.unknown()))),
  metadata: v.optional(v.nullable(v.record(v.string(), v.nullable(v.string())))),
  multiagent: v.optional(v.unknown()),
  execution_identity: v.optional(v.unknown()),
};

/** `POST /v1/agents`. */
export const CreateAgentParams = v.strictObject(Fields);
export type CreateAgentParams = v.InferOutput<typeof CreateAgentParams>;

/** `POST /v1/agents/{id}`: every field optional, `version` the expected current version. */
export const UpdateAgentParams = v.strictObject({
  name: v.optional(Fields.name),
  description: Fields.description,
  model: v.optional(Fields.model),
  system: Fields.system,
  tools: Fields.tools,
  mcp_servers: Fields.mcp_servers,
  skills: Fields.skills,
  metadata: Fields.metadata,
  multiagent: Fields.multiagent,
  execution_identity: Fields.execution_identity,
  version: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type UpdateAgentParams = v.InferOutput<typeof UpdateAgentParams>;

/** The CMA view of an agent version: what the SDK sent, merged, before it becomes our config. */
export type CmaAgentView = {
  name: string;
  description: string | null;
  model: { id: string; [key: string]: unknown };
  system: string | null;
  tools: Array<v.InferOutput<typeof CustomTool>>;
  /** The `agent_toolset_20260401` entry (absent in views stored before it existed: none). */
  toolset?: ToolsetView | null;
  skills: Array<{ type: 'custom'; skill_id: string; version: string | null }>;
  metadata: Record<string, string>;
  /** The coordinator roster as resolved when published (absent in views stored before it existed: none). */
  multiagent?: CoordinatorView | null;
};

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${field}: ${message}`, { path: `body.${field}` });
};

/**
 * Checks the fields this server cannot honour, then normalizes the CMA view (create, or an update
 * merged over `base`). `multiagent` is resolved by the caller (it reads other agents): the view
 * keeps the base's roster.
 */
export function cmaViewOf(params: Partial<CreateAgentParams>, base: CmaAgentView | null): CmaAgentView {
  if (params.mcp_servers && params.mcp_servers.length > 0)
    fail('mcp_servers', 'MCP servers by URL are not supported by this server; bind MCP toolsets through the native API');
  if (params.execution_identity !== undefined && params.execution_identity !== null) {
    const identity = params.execution_identity as { type?: unknown };
    if (identity?.type !== 'service_account') fail('execution_identity', 'only {"type": "service_account"} is supported');
  }
  const given = params.tools === undefined ? null : (params.tools ?? []);
  const tools = given === null ? (base?.tools ?? []) : given.flatMap((tool, index) => (tool.type === TOOLSET_TYPE ? [] : [toolOf(tool, index)]));
  const toolsets = given === null ? [] : given.flatMap((tool, index) => (tool.type === TOOLSET_TYPE ? [toolsetOf(tool, `tools.${index}`)] : []));
  if (toolsets.length > 1) fail('tools', `at most one ${TOOLSET_TYPE}`);
  const toolset = given === null ? (base?.toolset ?? null) : (toolsets[0] ?? null);
  const skills = params.skills === undefined ? (base?.skills ?? []) : (params.skills ?? []).map((skill, index) => skillOf(skill, index));
  const metadata = patchedMetadata(base?.metadata ?? {}, params.metadata);
  const model = params.model === undefined ? base?.model : typeof params.model === 'string' ? { id: params.model } : { ...params.model };
  if (!model) return fail('model', 'is required');
  const name = params.name ?? base?.name;
  if (!name) return fail('name', 'is required');
  return {
    name,
    description: params.description === undefined ? (base?.description ?? null) : params.description,
    model: model as CmaAgentView['model'],
    system: params.system === undefined ? (base?.system ?? null) : params.system === '' ? null : params.system,
    tools,
    toolset,
    skills,
    metadata,
    multiagent: base?.multiagent ?? null,
  };
}

function toolOf(tool: Record<string, unknown>, index: number) {
  const field = `tools.${index}`;
  if (tool.type === 'mcp_toolset') fail(field, 'mcp_toolset is not supported by this server (MCP servers by URL)');
  if (tool.type !== 'custom') fail(`${field}.type`, 'must be "custom"');
  const parsed = v.safeParse(CustomTool, tool);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const at = issue.path?.map((item) => String(item.key)).join('.');
    fail(at ? `${field}.${at}` : field, issue.message);
  }
  return (parsed as v.SafeParseResult<typeof CustomTool> & { success: true }).output;
}

function skillOf(skill: unknown, index: number): CmaAgentView['skills'][number] {
  const parsed = v.safeParse(SkillRef, skill);
  if (!parsed.success) return fail(`skills.${index}`, 'must be {type: "custom", skill_id, version?}');
  if (parsed.output.type !== 'custom') fail(`skills.${index}.type`, 'only custom Skills are supported by this server');
  const version = parsed.output.version;
  return { type: 'custom', skill_id: parsed.output.skill_id, version: version === undefined || version === null ? null : String(version) };
}

/** Whether the view's toolset needs a sandbox (what the caller must then choose: `SandboxPlacement`). */
export const needsSandbox = (view: CmaAgentView) => (view.toolset?.capabilities.length ?? 0) > 0;

/** Where a toolset's sandbox runs: a sandbox connection's key and a snapshot. */
export type SandboxPlacement = { provider: string; snapshotId: string };

/**
 * Our agent version config for a CMA view; `skillVersionIds` resolved by the caller (the latest
 * version when none is named), `sandbox` chosen by the caller when the toolset needs one. The
 * sandbox has no network: web tools do not exist here.
 */
export function agentConfigOf(
  view: CmaAgentView,
  skillVersionIds: string[],
  sandbox: SandboxPlacement | null = null,
  delegates: ReadonlyArray<Record<string, unknown>> = [],
): Record<string, unknown> {
  return {
    ...(delegates.length > 0 ? { delegates } : {}),
    ...(needsSandbox(view) && sandbox
      ? { sandbox: { enabled: true, provider: sandbox.provider, snapshotId: sandbox.snapshotId, network: 'none', capabilities: view.toolset!.capabilities } }
      : {}),
    systemPrompt: view.system ?? DEFAULT_SYSTEM_PROMPT,
    modelPreset: view.model.id,
    tools: view.tools.map((tool) => ({
      schemaVersion: 1,
      name: tool.name,
      description: tool.description && tool.description.length > 0 ? tool.description : tool.name,
      owner: 'caller',
      approval: tool.permission_policy?.type === 'always_ask' ? 'always' : 'never',
      inputSchema: tool.input_schema,
      outputSchema: { type: 'object' },
    })),
    skillVersionIds,
    limits: { ...COMPAT_LIMITS },
  };
}

/** The CMA view of a version published through our native API (best effort: caller tools, and its sandbox as the toolset). */
export function viewOfNativeVersion(agent: { name: string; description: string | null }, config: Record<string, unknown>): CmaAgentView {
  const tools = ((config.tools as Array<Record<string, unknown>> | undefined) ?? [])
    .filter((tool) => tool.owner === 'caller')
    .map((tool) => ({
      type: 'custom' as const,
      name: String(tool.name),
      description: String(tool.description ?? ''),
      input_schema: (tool.inputSchema as Record<string, unknown>) ?? { type: 'object' },
      ...(tool.approval === 'always' ? { permission_policy: { type: 'always_ask' as const } } : {}),
    }));
  const sandbox = config.sandbox as { enabled?: boolean; capabilities?: string[] } | undefined;
  const toolset = sandbox?.enabled ? toolsetOfCapabilities(sandbox.capabilities ?? []) : null;
  return {
    name: agent.name,
    description: agent.description,
    model: { id: String(config.modelPreset) },
    system: String(config.systemPrompt),
    tools,
    toolset,
    skills: [],
    metadata: {},
  };
}

/** `BetaManagedAgentsAgent`: every required field, times from our rows; a Skill named without a version shows the version it pinned (`skillVersionIds`, in order). */
export function renderAgent(input: {
  id: string;
  view: CmaAgentView;
  skillVersionIds: unknown;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  archivedAt?: Date | null;
}) {
  const { view } = input;
  return {
    id: input.id,
    type: 'agent' as const,
    name: view.name,
    description: view.description,
    system: view.system,
    model: view.model,
    tools: [
      ...(view.toolset ? [renderToolset(view.toolset)] : []),
      ...view.tools.map((tool) => ({
        type: 'custom',
        name: tool.name,
        description: tool.description ?? '',
        input_schema: tool.input_schema,
        ...(tool.permission_policy ? { permission_policy: tool.permission_policy } : {}),
      })),
    ],
    mcp_servers: [],
    skills: view.skills.map((skill, index) => ({
      ...skill,
      version: skill.version ?? (Array.isArray(input.skillVersionIds) ? ((input.skillVersionIds[index] as string | undefined) ?? null) : null),
    })),
    multiagent: renderMultiagent(view.multiagent, { id: input.id, version: input.version }),
    execution_identity: { type: 'service_account' },
    metadata: view.metadata,
    version: input.version,
    created_at: input.createdAt.toISOString(),
    updated_at: input.updatedAt.toISOString(),
    archived_at: input.archivedAt ? input.archivedAt.toISOString() : null,
  };
}
export type CmaAgent = ReturnType<typeof renderAgent>;

/**
 * `BetaManagedAgentsSessionThreadAgent`: the full definition of an agent as a session's thread
 * runs it, and as a session's `agent.multiagent.agents` lists its roster.
 */
export function threadAgentOf(agent: CmaAgent) {
  return {
    type: 'agent' as const,
    id: agent.id,
    version: agent.version,
    name: agent.name,
    description: agent.description,
    system: agent.system,
    model: agent.model,
    tools: agent.tools,
    skills: agent.skills,
    mcp_servers: agent.mcp_servers,
    execution_identity: agent.execution_identity,
  };
}
export type CmaThreadAgent = ReturnType<typeof threadAgentOf>;
