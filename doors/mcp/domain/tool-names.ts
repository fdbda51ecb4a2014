/**
 * MCP tool names: 1 to 128 characters of `A-Z a-z 0-9 _ - .` (the MCP specification, "Tool
 * names"). Agent keys are lowercase letters, digits, `-` and `_` (domain/agents.ts), so today an
 * agent's tool name is its key; the mapping still holds for any key, should the key rules widen.
 */
export const TOOL_NAME_MAX_LENGTH = 128;

const NOT_ALLOWED = /[^A-Za-z0-9_.-]/gu;

/** The tool name of an agent key: each character MCP does not allow becomes `_`, cut to 128. */
export function toolNameOf(agentKey: string): string {
  const name = agentKey.replace(NOT_ALLOWED, '_').slice(0, TOOL_NAME_MAX_LENGTH);
  return name === '' ? '_' : name;
}

/**
 * The tool names of agents listed oldest first: each agent's own, except that a name a previous
 * agent already took is no one else's (two keys can map to one name only once the key rules
 * widen); the list and the call resolve names the same way, so a name always means one agent.
 */
export function assignToolNames<T extends { key: string }>(agents: readonly T[]): Array<{ name: string; agent: T }> {
  const taken = new Set<string>();
  return agents.flatMap((agent) => {
    const name = toolNameOf(agent.key);
    if (taken.has(name)) return [];
    taken.add(name);
    return [{ name, agent }];
  });
}
