import { inArray } from 'drizzle-orm';
import { isOurId } from '../domain/ids.ts';
import { delegateKeysOf, isSelfEntry, rosterOf, type CoordinatorView, type RosterEntry } from '../domain/multiagent.ts';
import { compatAnthropicAgentVersions } from '../tables.ts';
import { eq } from 'drizzle-orm';
import {
  agentConfigOf,
  cmaViewOf,
  needsSandbox,
  renderAgent,
  threadAgentOf,
  viewOfNativeVersion,
  type CmaAgent,
  type CmaThreadAgent,
  type CmaAgentView,
  type CreateAgentParams,
  type SandboxPlacement,
  type UpdateAgentParams,
} from '../domain/agents.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { createAgent } from '../../../services/configuration/agents/index.ts';
import { deleteAgent } from '../../../services/configuration/agents/index.ts';
import { listAgents } from '../../../services/configuration/agents/index.ts';
import type { PublicationDeps } from '../../../services/configuration/agents/index.ts';
import type { PublicAgent, PublicAgentVersion } from '../../../services/configuration/agents/index.ts';
import { publishAgentVersion } from '../../../services/configuration/agents/index.ts';
import { getAgentIncludingArchived, listAgentsIncludingArchived } from '../../../services/configuration/agents/index.ts';
import { agentVersionIdByNumber, readAgentVersion } from '../../../services/configuration/agents/index.ts';
import { defaultSandboxConnectionKey } from '../../../services/configuration/sandbox-providers/index.ts';
import { resolveSkillVersionId } from '../../../services/configuration/skills/index.ts';
import { requireActor } from '../../../services/kernel/require-actor.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { withTransaction } from '../../../services/kernel/transaction.ts';

/**
 * Claude Managed Agents agents (`/compat/anthropic/v1/agents`) over our agent verbs: every rule
 * is theirs; this adds only the CMA view each version was published with
 * (`compat_anthropic_agent_versions`) and renders it back.
 */

type AgentWithVersions = PublicAgent & { versions: PublicAgentVersion[]; archivedAt?: string | null };

export async function createCompatAgent({ ctx, deps, input }: { ctx: ServiceContext; deps: PublicationDeps; input: CreateAgentParams }): Promise<CmaAgent> {
  const roster = rosterOf(input.multiagent);
  const parsed = cmaViewOf(input, null);
  return withTransaction(ctx, async (tx) => {
    const { multiagent, delegates } = await resolveRoster(tx, roster ?? null, { id: null, name: parsed.name, description: parsed.description ?? null });
    const view = { ...parsed, multiagent };
    const config = agentConfigOf(view, await skillVersionIdsOf(tx, view), await sandboxPlacementOf(tx, deps, view), delegates);
    const created = await onRoster(() =>
      createAgent({
        ctx: tx,
        deps,
        input: { name: view.name, ...(view.description ? { description: view.description } : {}), initialConfig: config },
      }),
    );
    const version = created.versions[0]!;
    await storeView(tx, version.id, view);
    return render(created, version, view);
  });
}

/** The agent as of `version` (its number), else as of its latest version; an archived one too, with `archived_at` (read only). */
export async function getCompatAgent({ ctx, input }: { ctx: ServiceContext; input: { agentId: string; version?: number } }): Promise<CmaAgent> {
  const agent = await getAgentIncludingArchived({ ctx, input: { agentId: input.agentId } });
  const version = input.version === undefined ? agent.versions[0]! : agent.versions.find((candidate) => candidate.version === input.version);
  if (!version) throw new NotFoundError(`The agent has no version ${input.version}`);
  return render(agent, version, (await viewsOf(ctx, agent, [version])).get(version.id)!);
}

/**
 * An update publishes the next version with the patch merged over the latest one. `version`, when
 * given, must be the latest (409 otherwise). A patch that changes only what our versions do not
 * hold (name, description, metadata) is kept on the latest version, whose number stays.
 */
export async function updateCompatAgent({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: PublicationDeps;
  input: { agentId: string; params: UpdateAgentParams };
}): Promise<CmaAgent> {
  const { version: expected, ...patch } = input.params;
  return withTransaction(ctx, async (tx) => {
    const agent = await getAgentIncludingArchived({ ctx: tx, input: { agentId: input.agentId } });
    if (agent.archivedAt) throw archivedAgent('updated');
    const latest = agent.versions[0]!;
    if (expected !== undefined && expected !== latest.version) {
      throw new ConflictError(`The agent is at version ${latest.version}, not ${expected}`, { version: latest.version });
    }
    const base = (await viewsOf(tx, agent, [latest])).get(latest.id)!;
    const roster = rosterOf(patch.multiagent);
    const merged = cmaViewOf(patch, base);
    // Omitted: the roster stays as it was resolved (each agent at the version it was given).
    const { multiagent, delegates } = await resolveRoster(tx, roster === undefined ? (base.multiagent?.agents ?? null) : roster, {
      id: agent.id,
      name: merged.name,
      description: merged.description ?? null,
    });
    const view = { ...merged, multiagent };
    const config = agentConfigOf(view, await skillVersionIdsOf(tx, view), await sandboxPlacementOf(tx, deps, view), delegates);
    try {
      const published = await onRoster(() => publishAgentVersion({ ctx: tx, deps, input: { agentId: agent.id, config } }));
      await storeView(tx, published.id, view);
      return render(agent, published, view);
    } catch (error) {
      const same = error instanceof ConflictError ? (error.details?.version as number | undefined) : undefined;
      if (same !== latest.version) {
        if (same !== undefined)
          throw new ConflictError(`This configuration was published as version ${same}; a version cannot be published twice`, { version: same });
        throw error;
      }
      await storeView(tx, latest.id, view);
      return render(agent, latest, view);
    }
  });
}

/** How many child runs of one roster agent a coordinator run may have going at once (the most a delegate allows). */
const ROSTER_MAX_PARALLEL = 8;

/**
 * A coordinator's roster at exact versions, and the delegates it becomes: each agent of this
 * project, not archived, at the version named or its latest, itself without a roster (depth
 * limit 1), under a key made from its name; `self` becomes a `self` delegate (the coordinator's
 * own version, as a copy that does not delegate again), keyed by the coordinator's name. A 400
 * naming the entry otherwise.
 */
async function resolveRoster(
  ctx: ServiceContext,
  entries: readonly RosterEntry[] | null,
  owner: { id: string | null; name: string; description: string | null },
): Promise<{ multiagent: CoordinatorView | null; delegates: Array<Record<string, unknown>> }> {
  if (!entries || entries.length === 0) return { multiagent: null, delegates: [] };
  const resolved: Array<CoordinatorView['agents'][number] & { name: string; description: string; versionId?: string }> = [];
  for (const [index, entry] of entries.entries()) {
    const field = `multiagent.agents.${index}`;
    const refuse = (message: string): never => {
      throw new ValidationError(`${field}: ${message}`, { path: `body.${field}` });
    };
    if (isSelfEntry(entry)) {
      resolved.push({ self: true, name: owner.name, description: owner.description || `A copy of "${owner.name}".` });
      continue;
    }
    if (entry.id === owner.id) refuse('names this agent itself; use {"type": "self"}');
    const agent = isOurId(entry.id) ? await getAgentIncludingArchived({ ctx, input: { agentId: entry.id } }).catch(notFoundAsNull) : null;
    if (!agent) return refuse(`no agent ${entry.id} in this project`);
    if (agent.archivedAt) refuse(`the agent ${entry.id} is archived`);
    const version = entry.version === null ? agent.versions[0]! : agent.versions.find((candidate) => candidate.version === entry.version);
    if (!version) return refuse(`the agent ${entry.id} has no version ${entry.version}`);
    if (((version.config as { delegates?: unknown[] }).delegates ?? []).length > 0)
      refuse(`the agent ${entry.id} has a roster of its own (a coordinator's agents cannot: depth limit 1)`);
    resolved.push({
      id: agent.id,
      version: version.version,
      versionId: version.id,
      name: agent.name,
      description: agent.description || `The agent "${agent.name}".`,
    });
  }
  const keys = delegateKeysOf(resolved.map((agent) => agent.name));
  return {
    multiagent: { type: 'coordinator', agents: resolved.map((agent) => (isSelfEntry(agent) ? { self: true } : { id: agent.id, version: agent.version })) },
    delegates: resolved.map((agent, index) => ({
      key: keys[index],
      description: agent.description.slice(0, 2_000),
      ...(isSelfEntry(agent) ? { self: true } : { agentVersionId: agent.versionId }),
      maxParallel: ROSTER_MAX_PARALLEL,
    })),
  };
}

const notFoundAsNull = (error: unknown) => {
  if (error instanceof NotFoundError) return null;
  throw error;
};

/** A publication's refusal of a delegate (say, a sandbox unlike the coordinator's) named by its roster entry. */
async function onRoster<T>(publish: () => Promise<T>): Promise<T> {
  try {
    return await publish();
  } catch (error) {
    const path = error instanceof ValidationError ? String((error.details as { path?: unknown } | undefined)?.path ?? '') : '';
    const match = /delegates[.[](\d+)/.exec(path);
    if (!match) throw error;
    const field = `multiagent.agents.${match[1]}`;
    throw new ValidationError(`${field}: ${error instanceof Error ? error.message : 'cannot be a delegate of this agent'}`, { path: `body.${field}` });
  }
}

/** The project's agents, oldest first; archived ones (with `archived_at`) only with `includeArchived`. */
export async function listCompatAgents({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; page: string | undefined; includeArchived: boolean };
}): Promise<{ data: CmaAgent[]; next_page: string | null }> {
  const query = { limit: Math.min(input.limit, 200), ...(input.page ? { cursor: input.page } : {}) };
  const page = input.includeArchived ? await listAgentsIncludingArchived({ ctx, input: query }) : await listAgents({ ctx, input: query });
  const data: CmaAgent[] = [];
  for (const agent of page.data) data.push(await getCompatAgent({ ctx, input: { agentId: agent.id } }));
  return { data, next_page: page.pageInfo.nextCursor };
}

/** Every version, newest first (of an archived agent too, each with its `archived_at`). */
export async function listCompatAgentVersions({ ctx, input }: { ctx: ServiceContext; input: { agentId: string } }): Promise<CmaAgent[]> {
  const agent = await getAgentIncludingArchived({ ctx, input: { agentId: input.agentId } });
  const views = await viewsOf(ctx, agent, agent.versions);
  return agent.versions.map((version) => render(agent, version, views.get(version.id)!));
}

/**
 * Archives the agent (ours: deleted, so the native API answers 404) and answers it with
 * `archived_at`; here it stays readable. Archiving an archived agent answers it as it is.
 */
export async function archiveCompatAgent({ ctx, input }: { ctx: ServiceContext; input: { agentId: string } }): Promise<CmaAgent> {
  return withTransaction(ctx, async (tx) => {
    const agent = await getCompatAgent({ ctx: tx, input });
    if (agent.archived_at) return agent;
    await deleteAgent({ ctx: tx, input });
    return getCompatAgent({ ctx: tx, input });
  });
}

/** A change to an archived agent: a 400, as the hosted API refuses changes to what is archived (the SDK's `400 environment_archived`); the SDK does not retry it. */
export function archivedAgent(refused: 'updated' | 'started'): ValidationError {
  return refused === 'updated'
    ? new ValidationError('The agent is archived, so it cannot be updated', { path: 'path.agent_id' })
    : new ValidationError('agent: the agent is archived, so no session can be started from it', { path: 'body.agent' });
}

/** Whether `agentId` names an archived agent of the actor's project (false when there is no such agent). */
export async function isArchivedAgent(ctx: ServiceContext, agentId: string): Promise<boolean> {
  try {
    return (await getAgentIncludingArchived({ ctx, input: { agentId } })).archivedAt !== null;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

function render(agent: AgentWithVersions, version: PublicAgentVersion, view: CmaAgentView): CmaAgent {
  return renderAgent({
    id: agent.id,
    view,
    skillVersionIds: version.config.skillVersionIds,
    version: version.version,
    createdAt: new Date(agent.createdAt),
    updatedAt: new Date(version.createdAt),
    archivedAt: agent.archivedAt ? new Date(agent.archivedAt) : null,
  });
}

async function storeView(tx: ServiceContext, agentVersionId: string, view: CmaAgentView) {
  const actor = requireActor(tx);
  await tx.db
    .insert(compatAnthropicAgentVersions)
    .values({ agentVersionId, organizationId: actor.organizationId, projectId: actor.projectId, view: view as unknown as Record<string, unknown> })
    .onConflictDoUpdate({ target: compatAnthropicAgentVersions.agentVersionId, set: { view: view as unknown as Record<string, unknown> } });
}

/** The CMA view of each version: as stored when published here, else derived from the version itself. */
async function viewsOf(ctx: ServiceContext, agent: AgentWithVersions, versions: PublicAgentVersion[]): Promise<Map<string, CmaAgentView>> {
  const rows =
    versions.length === 0
      ? []
      : await ctx.db
          .select()
          .from(compatAnthropicAgentVersions)
          .where(
            inArray(
              compatAnthropicAgentVersions.agentVersionId,
              versions.map((version) => version.id),
            ),
          );
  const stored = new Map(rows.map((row) => [row.agentVersionId, row.view as unknown as CmaAgentView]));
  return new Map(
    versions.map((version) => [
      version.id,
      stored.get(version.id) ?? viewOfNativeVersion({ name: agent.name, description: agent.description || null }, version.config),
    ]),
  );
}

/**
 * Where an `agent_toolset_20260401` sandbox runs: the organization's sandbox connection keyed
 * `default`, else its oldest; the first active snapshot of the registry. A 400 when there is none.
 */
async function sandboxPlacementOf(ctx: ServiceContext, deps: PublicationDeps, view: CmaAgentView): Promise<SandboxPlacement | null> {
  if (!needsSandbox(view)) return null;
  const connection = await defaultSandboxConnectionKey({ ctx });
  if (!connection)
    throw new ValidationError('tools: agent_toolset_20260401 needs a sandbox connection in this organization; connect one first', { path: 'body.tools' });
  const snapshot = deps.sandboxSnapshots.find((candidate) => candidate.state === 'active');
  if (!snapshot) throw new ValidationError('tools: agent_toolset_20260401 needs an active sandbox snapshot on this server', { path: 'body.tools' });
  return { provider: connection, snapshotId: snapshot.id };
}

/** `skills[]` as our version ids: the one named, else the Skill's newest version now that is not revoked (ours pin exact versions). */
async function skillVersionIdsOf(ctx: ServiceContext, view: CmaAgentView): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, skill] of view.skills.entries()) {
    // An id that is not a UUID cannot name one of ours (and must not reach PostgreSQL as one).
    const named = isOurId(skill.skill_id) && (!skill.version || isOurId(skill.version));
    const row = named ? await resolveSkillVersionId({ ctx, input: { skillId: skill.skill_id, versionId: skill.version } }) : undefined;
    if (!row)
      throw new ValidationError(`skills.${index}: no Skill ${skill.skill_id}${skill.version ? ` with version ${skill.version}` : ''} in this project`, {
        path: `body.skills.${index}`,
      });
    ids.push(row);
  }
  return ids;
}

/**
 * The agent as of one version, for a session's `agent` snapshot: read from the version row even
 * when the agent has since been archived (a session keeps its pinned version for life).
 */
export async function agentSnapshotOf(ctx: ServiceContext, agentVersionId: string): Promise<CmaAgent> {
  const row = await readAgentVersion({ ctx, input: { agentVersionId } });
  const [stored] = await ctx.db
    .select({ view: compatAnthropicAgentVersions.view })
    .from(compatAnthropicAgentVersions)
    .where(eq(compatAnthropicAgentVersions.agentVersionId, agentVersionId));
  const view =
    (stored?.view as unknown as CmaAgentView | undefined) ??
    viewOfNativeVersion({ name: row.agent.name, description: row.agent.description }, row.version.config);
  return renderAgent({
    id: row.agent.id,
    view,
    skillVersionIds: row.version.config.skillVersionIds,
    version: row.version.version,
    createdAt: row.agent.createdAt,
    updatedAt: row.version.createdAt,
  });
}

/**
 * The agent a session pins, with its coordinator roster (if any) as the full definitions the
 * session's threads run (`BetaManagedAgentsSessionMultiagentCoordinator`), not as references.
 */
export async function sessionAgentOf(ctx: ServiceContext, agentVersionId: string): Promise<{ agent: CmaAgent; roster: CmaThreadAgent[] | null }> {
  const agent = await agentSnapshotOf(ctx, agentVersionId);
  if (!agent.multiagent) return { agent, roster: null };
  const roster = await Promise.all(
    agent.multiagent.agents.map(async (entry) =>
      threadAgentOf(
        entry.id === agent.id && entry.version === agent.version ? agent : await agentSnapshotOf(ctx, await agentVersionIdOf(ctx, entry.id, entry.version)),
      ),
    ),
  );
  return { agent, roster };
}

/** Our id of an agent's version numbered `version` (404 when there is none). */
export async function agentVersionIdOf(ctx: ServiceContext, agentId: string, version: number): Promise<string> {
  return agentVersionIdByNumber({ ctx, input: { agentId, version } });
}
