import { ValidationError } from '../../../domain/errors.ts';

/**
 * The hosted API's `multiagent` on agents, as far as this server serves it
 * (docs/compat/anthropic-multiagent.md, docs/decisions/anthropic-compat-multiagent.md): the
 * `coordinator` topology, whose roster becomes the version's delegates (`{type: "self"}`: a
 * `self` delegate, a copy of the coordinator that does not delegate again). What it cannot
 * honour (`multiagent_20261001`, advisor entries) is a 400 naming the field.
 */

/** The `{type: "self"}` entry: the agent that owns the configuration, at the version being published. */
export type SelfEntry = { self: true };
/** A roster entry as sent: an agent id (its latest version then), `{type: "agent", id, version?}` or `self`. */
export type RosterEntry = { id: string; version: number | null } | SelfEntry;
/** The roster as resolved when the version was published: each agent at an exact version, or `self`. */
export type CoordinatorView = { type: 'coordinator'; agents: Array<{ id: string; version: number } | SelfEntry> };

export const isSelfEntry = (entry: RosterEntry | CoordinatorView['agents'][number]): entry is SelfEntry => 'self' in entry;

export const ROSTER_LIMITS = { min: 1, max: 20 } as const;

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${field}: ${message}`, { path: `body.${field}` });
};
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `multiagent` of a create or update: undefined (keep), null (none), or a coordinator's roster. */
export function rosterOf(multiagent: unknown): RosterEntry[] | null | undefined {
  if (multiagent === undefined || multiagent === null) return multiagent;
  if (!isRecord(multiagent)) return fail('multiagent', 'must be {"type": "coordinator", "agents": [...]}');
  if (multiagent.type === 'multiagent_20261001')
    return fail('multiagent.type', 'multiagent_20261001 (advisor, subagents, inline agents, workflows) is not supported by this server; use "coordinator"');
  if (multiagent.type !== 'coordinator') return fail('multiagent.type', 'must be "coordinator"');
  const extra = Object.keys(multiagent).find((key) => key !== 'type' && key !== 'agents');
  if (extra) return fail(`multiagent.${extra}`, 'is not a field of the coordinator topology');
  const { agents } = multiagent;
  if (!Array.isArray(agents) || agents.length < ROSTER_LIMITS.min || agents.length > ROSTER_LIMITS.max)
    return fail('multiagent.agents', `must be ${ROSTER_LIMITS.min}-${ROSTER_LIMITS.max} roster entries`);
  const entries = agents.map((entry, index) => entryOf(entry, `multiagent.agents.${index}`));
  const idOf = (entry: RosterEntry) => (isSelfEntry(entry) ? 'self' : entry.id);
  entries.forEach((entry, index) => {
    if (entries.findIndex((other) => idOf(other) === idOf(entry)) !== index)
      fail(`multiagent.agents.${index}`, isSelfEntry(entry) ? 'repeats "self" (at most one)' : 'names an agent the roster already has');
  });
  return entries;
}

function entryOf(entry: unknown, field: string): RosterEntry {
  if (typeof entry === 'string') return entry.length > 0 ? { id: entry, version: null } : fail(field, 'must be an agent id');
  if (!isRecord(entry)) return fail(field, 'must be an agent id or {"type": "agent", "id", "version"}');
  if (entry.type === 'self') {
    const extra = Object.keys(entry).find((key) => key !== 'type');
    return extra ? fail(`${field}.${extra}`, 'is not a field of a "self" entry') : { self: true };
  }
  if (entry.type === 'advisor') return fail(`${field}.type`, 'advisor entries are not supported by this server');
  if (entry.type !== 'agent') return fail(`${field}.type`, 'must be "agent"');
  const extra = Object.keys(entry).find((key) => !['type', 'id', 'version'].includes(key));
  if (extra) return fail(`${field}.${extra}`, 'is not a field of a roster entry');
  if (typeof entry.id !== 'string' || entry.id.length === 0) return fail(`${field}.id`, 'must be an agent id');
  if (entry.version !== undefined && entry.version !== null && !(Number.isInteger(entry.version) && (entry.version as number) >= 1))
    return fail(`${field}.version`, 'must be an integer, at least 1');
  return { id: entry.id, version: (entry.version as number | null | undefined) ?? null };
}

/**
 * A roster agent's delegate key: its name in lower case, what delegate keys cannot hold as
 * dashes, starting with a letter, unique in the roster (`-2`, `-3` after a repeat).
 */
export function delegateKeysOf(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    let base = name
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[^a-z]+/, '')
      .replace(/-+$/, '')
      .slice(0, 56);
    if (base === '') base = 'agent';
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
    taken.add(key);
    return key;
  });
}

/**
 * `multiagent` as the SDK reads it back: each roster agent at its exact version; `self` resolved
 * to the owning agent at the version being read (`owner`), as the SDK's types describe it.
 */
export function renderMultiagent(view: CoordinatorView | null | undefined, owner: { id: string; version: number }) {
  if (!view) return null;
  return {
    type: 'coordinator' as const,
    agents: view.agents.map((agent) => ({ type: 'agent' as const, ...(isSelfEntry(agent) ? owner : { id: agent.id, version: agent.version }) })),
  };
}
