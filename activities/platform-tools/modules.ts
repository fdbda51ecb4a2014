import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { MCP_TOOL_PREFIX, RESERVED_TOOL_NAMES, SANDBOX_TOOLS, TOOL_NAME_PATTERN } from '../../domain/agent-config/index.ts';
import type { DestinationLookup } from '../../adapters/outbound/pinned-destination.ts';
import { httpGetTool } from './builtin/http-get.ts';
import type { PlatformToolHandler } from './registry.ts';

export type { PlatformToolModuleTool } from './module-tool.ts';
import type { PlatformToolModuleTool } from './module-tool.ts';

/** The tools the service ships, named `builtin:<name>` in SVC_PLATFORM_TOOL_MODULES. */
const BUILT_IN_MODULES: Record<string, (options: BuiltInOptions) => PlatformToolModuleTool[]> = {
  http_get: (options) => [httpGetTool(options)],
};

type BuiltInOptions = { allowPrivateNetwork: boolean; lookup?: DestinationLookup };

const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false, useDefaults: false });
const PLATFORM_NAMES = new Set([...RESERVED_TOOL_NAMES, ...Object.values(SANDBOX_TOOLS).flat()]);

/**
 * Loads the platform tools SVC_PLATFORM_TOOL_MODULES names, at worker start: each entry is an ES
 * module (a path, resolved against `cwd`) whose `tools` export (or default export) is an array of
 * `PlatformToolModuleTool`, or `builtin:<name>`. Every problem comes back as one line (a module
 * that cannot be imported, a malformed tool, a name that is invalid, reserved or taken twice, an
 * input schema that does not compile); the caller refuses to start on any. The handlers
 * validate their input against the tool's schema before calling it.
 */
export async function loadPlatformToolModules(
  entries: readonly string[],
  options: BuiltInOptions & { cwd: string },
): Promise<{ handlers: Record<string, PlatformToolHandler>; problems: string[] }> {
  const handlers: Record<string, PlatformToolHandler> = {};
  const problems: string[] = [];
  const origin = new Map<string, string>();
  for (const entry of entries) {
    let tools: unknown;
    if (entry.startsWith('builtin:')) {
      const make = BUILT_IN_MODULES[entry.slice('builtin:'.length)];
      if (!make) {
        problems.push(
          `SVC_PLATFORM_TOOL_MODULES: "${entry}" is not a built-in (known: ${Object.keys(BUILT_IN_MODULES)
            .map((name) => `builtin:${name}`)
            .join(', ')})`,
        );
        continue;
      }
      tools = make(options);
    } else {
      try {
        const loaded = (await import(pathToFileURL(path.resolve(options.cwd, entry)).href)) as { tools?: unknown; default?: unknown };
        tools = loaded.tools ?? loaded.default;
      } catch (error) {
        problems.push(`SVC_PLATFORM_TOOL_MODULES: "${entry}" cannot be imported: ${(error as Error).message.split('\n')[0]}`);
        continue;
      }
    }
    if (!Array.isArray(tools)) {
      problems.push(`SVC_PLATFORM_TOOL_MODULES: "${entry}" exports no array of tools (export const tools = [...] or a default export)`);
      continue;
    }
    tools.forEach((tool: Partial<PlatformToolModuleTool>, index) => {
      const where = `SVC_PLATFORM_TOOL_MODULES: "${entry}" tool ${index}`;
      if (typeof tool?.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name))
        return problems.push(`${where}: name must be 1-200 letters, digits, "_" and "-", starting with a letter or "_"`);
      const name = tool.name;
      if (PLATFORM_NAMES.has(name.toLowerCase()) || name.toLowerCase().startsWith(MCP_TOOL_PREFIX))
        return problems.push(`${where}: "${name}" is a name the platform's own tools use`);
      if (origin.has(name)) return problems.push(`${where}: "${name}" is already registered by "${origin.get(name)}"`);
      if (typeof tool.handler !== 'function') return problems.push(`${where} ("${name}"): handler must be an async function`);
      if (tool.inputSchema === null || typeof tool.inputSchema !== 'object' || Array.isArray(tool.inputSchema))
        return problems.push(`${where} ("${name}"): inputSchema must be a JSON Schema object`);
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(tool.inputSchema);
      } catch (error) {
        return problems.push(`${where} ("${name}"): inputSchema does not compile: ${(error as Error).message}`);
      }
      origin.set(name, entry);
      handlers[name] = wrap(tool as PlatformToolModuleTool, validate);
      return undefined;
    });
  }
  return { handlers, problems };
}

function wrap(tool: PlatformToolModuleTool, validate: ValidateFunction): PlatformToolHandler {
  return async ({ arguments: input, runId, toolCallId, signal }) => {
    if (!validate(input)) {
      const error = validate.errors?.[0];
      return {
        status: 'failure',
        message: `The arguments do not match ${tool.name}'s input schema: ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`,
      };
    }
    try {
      return { status: 'success', value: (await tool.handler(input as Record<string, unknown>, { signal, runId, toolCallId })) ?? null };
    } catch (error) {
      if (signal.aborted) throw error;
      return { status: 'failure', message: error instanceof Error && error.message ? error.message : `${tool.name} failed` };
    }
  };
}
