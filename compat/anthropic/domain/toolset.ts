import * as v from 'valibot';
import type { SandboxCapability } from '../../../domain/agent-config/config-schema.ts';
import { ValidationError } from '../../../domain/errors.ts';

/**
 * `agent_toolset_20260401` over our sandbox (docs/decisions/anthropic-compat-agent-toolset.md): its
 * tools are our sandbox tools, granted by capability — `read` by `filesystem_read`, `write` and
 * `edit` by `filesystem_write`, `bash`, `grep` and `glob` by `shell` — so tools that share a
 * capability are enabled together. `web_fetch` and `web_search` do not exist here: left at the
 * default they are shown disabled, asked for explicitly they are a 400. Sandbox tools never ask
 * for confirmation here, so `always_ask` is a 400; `auto` is allow.
 */

export const TOOLSET_TYPE = 'agent_toolset_20260401';
const SANDBOX_TOOLS = ['bash', 'edit', 'read', 'write', 'glob', 'grep'] as const;
const WEB_TOOLS = ['web_fetch', 'web_search'] as const;
export type ToolsetToolName = (typeof SANDBOX_TOOLS)[number] | (typeof WEB_TOOLS)[number];

const CAPABILITY_OF: Record<(typeof SANDBOX_TOOLS)[number], SandboxCapability> = {
  read: 'filesystem_read',
  write: 'filesystem_write',
  edit: 'filesystem_write',
  bash: 'shell',
  grep: 'shell',
  glob: 'shell',
};

/** The toolset as this server holds it: which capabilities its enabled tools need. */
export type ToolsetView = { capabilities: SandboxCapability[] };

const Policy = v.nullish(v.strictObject({ type: v.picklist(['always_allow', 'always_ask', 'auto']) }));
const ToolsetParams = v.strictObject({
  type: v.literal(TOOLSET_TYPE),
  default_config: v.nullish(v.strictObject({ enabled: v.nullish(v.boolean()), permission_policy: Policy })),
  configs: v.nullish(
    v.array(
      v.strictObject({
        name: v.picklist([...SANDBOX_TOOLS, ...WEB_TOOLS]),
        type: v.optional(v.string()),
        enabled: v.nullish(v.boolean()),
        permission_policy: Policy,
      }),
    ),
  ),
});

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${field}: ${message}`, { path: `body.${field}` });
};

export function toolsetOf(tool: Record<string, unknown>, field: string): ToolsetView {
  const parsed = v.safeParse(ToolsetParams, tool);
  if (!parsed.success) {
    const at = parsed.issues[0].path?.map((item) => String(item.key)).join('.');
    return fail(at ? `${field}.${at}` : field, parsed.issues[0].message);
  }
  const { default_config: defaults, configs } = parsed.output;
  if (defaults?.permission_policy?.type === 'always_ask')
    fail(`${field}.default_config.permission_policy`, 'sandbox tools cannot ask for confirmation on this server');
  const enabled = new Map<string, boolean>();
  for (const [index, config] of (configs ?? []).entries()) {
    if (config.type !== undefined && config.type !== config.name) fail(`${field}.configs.${index}.type`, 'must equal name');
    if (config.permission_policy?.type === 'always_ask')
      fail(`${field}.configs.${index}.permission_policy`, 'sandbox tools cannot ask for confirmation on this server');
    if ((WEB_TOOLS as readonly string[]).includes(config.name) && config.enabled === true)
      fail(`${field}.configs.${index}.enabled`, `${config.name} is not available on this server`);
    if (config.enabled !== undefined && config.enabled !== null) enabled.set(config.name, config.enabled);
  }
  const on = (name: string) => enabled.get(name) ?? defaults?.enabled ?? true;
  const capabilities: SandboxCapability[] = [];
  for (const name of SANDBOX_TOOLS) {
    const capability = CAPABILITY_OF[name];
    const siblings = SANDBOX_TOOLS.filter((other) => CAPABILITY_OF[other] === capability);
    if (siblings.some((other) => on(other) !== on(name)))
      fail(`${field}.configs`, `${siblings.join(', ')} are enabled together on this server (one sandbox capability)`);
    if (on(name) && !capabilities.includes(capability)) capabilities.push(capability);
  }
  return { capabilities };
}

/** The toolset a sandbox policy's capabilities give (a version published through the native API), or null when none. */
export function toolsetOfCapabilities(capabilities: readonly string[]): ToolsetView | null {
  const known = capabilities.filter((capability): capability is SandboxCapability => Object.values(CAPABILITY_OF).includes(capability as SandboxCapability));
  return known.length > 0 ? { capabilities: [...new Set(known)] } : null;
}

/** `BetaManagedAgentsAgentToolset20260401`, fully resolved. */
export function renderToolset(toolset: ToolsetView) {
  const allow = { type: 'always_allow' as const };
  return {
    type: TOOLSET_TYPE,
    default_config: { enabled: true, permission_policy: allow },
    configs: [...SANDBOX_TOOLS, ...WEB_TOOLS].map((name) => ({
      name,
      type: name,
      enabled: name in CAPABILITY_OF && toolset.capabilities.includes(CAPABILITY_OF[name as (typeof SANDBOX_TOOLS)[number]]),
      permission_policy: allow,
    })),
  };
}
