import type { AgentConfig, SandboxCapability, SandboxPolicy, ToolDefinition } from './config-schema.ts';
import { invalid, pathOf } from './paths.ts';

/**
 * The mounted tool namespace: what the model sees as tool names in one run. Caller and platform
 * tools, Harness Operations, the delegation tools, sandbox tools and MCP tools all share it.
 */

/** Platform-supplied tools (delegation, the Skill loader, the memory tools of domain/memory/tools.ts); never definable in a config. */
export const RESERVED_TOOL_NAMES: readonly string[] = [
  'delegate_agent',
  'message_agent',
  'load_skill',
  'memory_list',
  'memory_read',
  'memory_write',
  'memory_delete',
];

/** MCP tools are mounted as `mcp__<namespace>__<remote_tool_name>`. */
export const MCP_TOOL_PREFIX = 'mcp__';

/** The name the model sees for a remote MCP tool of a binding. */
export const mcpToolName = (namespace: string, remoteToolName: string) => `${MCP_TOOL_PREFIX}${namespace}__${remoteToolName}`;

/** Capability to tool mapping (spec 1 "Sandbox policy"). */
export const SANDBOX_TOOLS: Readonly<Record<SandboxCapability, readonly string[]>> = {
  filesystem_read: ['read'],
  filesystem_write: ['write', 'edit'],
  shell: ['bash', 'grep', 'glob'],
  browser: ['browser_navigate', 'browser_snapshot', 'browser_interact'],
};

/** Sandbox tools this policy mounts; none while the sandbox is disabled. */
export function sandboxToolNames(sandbox: SandboxPolicy): string[] {
  return sandbox.enabled ? sandbox.capabilities.flatMap((capability) => SANDBOX_TOOLS[capability]) : [];
}

/**
 * Refuses a tool name or Harness Operation key that collides with another entry, a reserved
 * platform name, a mounted sandbox tool or the MCP prefix. Names compare case-insensitively so
 * the model is never shown two tools that differ only in case.
 */
export function checkToolNamespace(config: AgentConfig, root: string): void {
  const sandboxTools = new Map<string, SandboxCapability>();
  if (config.sandbox.enabled) {
    for (const capability of config.sandbox.capabilities) for (const name of SANDBOX_TOOLS[capability]) sandboxTools.set(name, capability);
  }
  const entries = [
    ...config.tools.map((tool, index) => ({ name: tool.name, path: pathOf(root, 'tools', index, 'name') })),
    ...config.harnessOperations.map((operation, index) => ({ name: operation.key, path: pathOf(root, 'harnessOperations', index, 'key') })),
  ];
  const seen = new Map<string, string>();
  for (const { name, path } of entries) {
    const folded = name.toLowerCase();
    if (folded.startsWith(MCP_TOOL_PREFIX)) throw invalid(path, `"${name}" uses the "${MCP_TOOL_PREFIX}" prefix, which is reserved for MCP tools`);
    if (RESERVED_TOOL_NAMES.includes(folded)) throw invalid(path, `"${name}" is reserved for a platform tool`);
    const capability = sandboxTools.get(folded);
    if (capability) throw invalid(path, `"${name}" is the sandbox tool of the enabled "${capability}" capability`);
    const earlier = seen.get(folded);
    if (earlier) throw invalid(path, `"${name}" is already used by ${earlier}`);
    seen.set(folded, path);
  }
}

export type ToolSummary = Pick<ToolDefinition, 'name' | 'description' | 'owner' | 'approval'>;

/** The config's own tools without schemas, in authored order (session detail `tools`). */
export function toolsOf(config: AgentConfig): ToolSummary[] {
  return config.tools.map(({ name, description, owner, approval }) => ({ name, description, owner, approval }));
}
