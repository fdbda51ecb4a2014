import type { SandboxPolicy, ToolDefinition } from '../agent-config/config-schema.ts';
import { sandboxToolNames } from '../agent-config/tools.ts';

/**
 * The sandbox tools a model is offered (spec 1 "Sandbox policy", capability to tool mapping):
 * `filesystem_read` → `read`; `filesystem_write` → `write`, `edit`; `shell` → `bash`, `grep`,
 * `glob`; `browser` → `browser_navigate`, `browser_snapshot`, `browser_interact`. Paths are
 * relative to the workspace (`/workspace` inside the sandbox).
 */
export type SandboxToolName = 'read' | 'write' | 'edit' | 'bash' | 'grep' | 'glob' | 'browser_navigate' | 'browser_snapshot' | 'browser_interact';

export type SandboxToolDefinition = { name: SandboxToolName; description: string; inputSchema: Record<string, unknown> };

const path = { type: 'string', description: 'A path relative to the workspace root, e.g. "notes/plan.md".' };

const DEFINITIONS: Record<SandboxToolName, SandboxToolDefinition> = {
  read: {
    name: 'read',
    description: 'Read a UTF-8 text file from the workspace. Returns its content (long files are cut; use offset and limit for lines).',
    inputSchema: {
      type: 'object',
      properties: { path, offset: { type: 'integer', minimum: 1 }, limit: { type: 'integer', minimum: 1, maximum: 5000 } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  write: {
    name: 'write',
    description: 'Create or replace a UTF-8 text file in the workspace (parent folders are created).',
    inputSchema: { type: 'object', properties: { path, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
  },
  edit: {
    name: 'edit',
    description: 'Replace exactly one occurrence of oldText with newText in a workspace file (all occurrences with replaceAll).',
    inputSchema: {
      type: 'object',
      properties: { path, oldText: { type: 'string', minLength: 1 }, newText: { type: 'string' }, replaceAll: { type: 'boolean' } },
      required: ['path', 'oldText', 'newText'],
      additionalProperties: false,
    },
  },
  bash: {
    name: 'bash',
    description: 'Run a bash command in the workspace. Returns exit code, stdout and stderr (each cut at 64 KiB).',
    inputSchema: {
      type: 'object',
      properties: { command: { type: 'string', minLength: 1 }, timeoutMs: { type: 'integer', minimum: 1000, maximum: 300000 } },
      required: ['command'],
      additionalProperties: false,
    },
  },
  grep: {
    name: 'grep',
    description: 'Search workspace files for a regular expression (extended syntax). Returns matching lines as path:line:text.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1 },
        path: { ...path, description: 'Folder or file to search; the workspace root by default.' },
        ignoreCase: { type: 'boolean' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  glob: {
    name: 'glob',
    description: 'List workspace files matching a glob pattern such as "**/*.md".',
    inputSchema: { type: 'object', properties: { pattern: { type: 'string', minLength: 1 } }, required: ['pattern'], additionalProperties: false },
  },
  browser_navigate: {
    name: 'browser_navigate',
    description: 'Open a URL in the sandbox browser (subject to the sandbox network policy). Returns the page title and final URL.',
    inputSchema: { type: 'object', properties: { url: { type: 'string', minLength: 1 } }, required: ['url'], additionalProperties: false },
  },
  browser_snapshot: {
    name: 'browser_snapshot',
    description: 'Return an accessibility snapshot of the current page: roles, names and element references for browser_interact.',
    inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
  },
  browser_interact: {
    name: 'browser_interact',
    description: 'Click, type into or select an element of the current page by its reference from browser_snapshot.',
    inputSchema: {
      type: 'object',
      properties: { action: { enum: ['click', 'type', 'select'] }, ref: { type: 'string', minLength: 1 }, text: { type: 'string' } },
      required: ['action', 'ref'],
      additionalProperties: false,
    },
  },
};

/** The tools an agent version's sandbox mounts (the mapping of agent-config), in a stable order. */
export function sandboxToolsFor(sandbox: SandboxPolicy): SandboxToolDefinition[] {
  const names = new Set(sandboxToolNames(sandbox));
  return (Object.keys(DEFINITIONS) as SandboxToolName[]).filter((name) => names.has(name)).map((name) => DEFINITIONS[name]);
}

/**
 * Sandbox tools as pinned tool definitions: platform-owned, never gated, results free-form
 * objects. Tool-call recording and completion look tools up by name in the version's tools plus
 * these, so sandbox calls follow the same validation, retry and result rules as any other tool.
 */
export function sandboxToolDefinitions(sandbox: SandboxPolicy): ToolDefinition[] {
  return sandboxToolsFor(sandbox).map((tool) => ({
    schemaVersion: 1 as const,
    name: tool.name,
    description: tool.description,
    owner: 'platform' as const,
    approval: 'never' as const,
    // Written in the normalized form published schemas are stored in.
    inputSchema: tool.inputSchema as ToolDefinition['inputSchema'],
    outputSchema: { type: 'object' as const, properties: {}, required: [], additionalProperties: true },
  }));
}
