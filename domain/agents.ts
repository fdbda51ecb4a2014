import * as v from 'valibot';

/** Agent keys: 1-64 characters, lowercase letters, digits, `-` and `_`, starting alphanumeric. */
export const AGENT_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const AgentKey = v.pipe(v.string(), v.regex(AGENT_KEY_PATTERN, 'key must be 1-64 characters of a-z, 0-9, "-" and "_", starting with a letter or digit'));

/**
 * `POST /agents` body: `{name, key?, description?, initialConfig | config}`. The config itself
 * is checked by the agent-config policy (domain/agent-config), so here it is any value.
 */
export const CreateAgentInput = v.pipe(
  v.strictObject({
    name: v.pipe(v.string(), v.trim(), v.minLength(1, 'name must not be empty'), v.maxLength(200, 'name must be at most 200 characters')),
    key: v.optional(AgentKey),
    description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(2000, 'description must be at most 2,000 characters')))),
    initialConfig: v.optional(v.unknown()),
    config: v.optional(v.unknown()),
  }),
  v.check((input) => (input.initialConfig === undefined) !== (input.config === undefined), 'give exactly one of initialConfig or config'),
);
export type CreateAgentInput = v.InferOutput<typeof CreateAgentInput>;

export const PublishVersionInput = v.strictObject({ config: v.unknown() });

/** A key derived from the agent's name when none is given: "Support Bot!" → "support-bot". */
export function keyFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56);
  return slug === '' ? 'agent' : slug;
}
