import { and, eq, isNull } from 'drizzle-orm';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';

type AgentRow = typeof agents.$inferSelect;
type AgentVersionRow = typeof agentVersions.$inferSelect;

/**
 * The version a new session pins: the live agent's latest. `agentVersionId`, alone or with
 * `agentId`, asserts which version the caller expects; naming an older version is a 400 rather
 * than a silent upgrade, unless the caller opted in with `anyVersion` (then any version of the
 * live agent is pinned as named). The agent row is share-locked to the end of the transaction, so
 * neither an archive nor a new version can commit between this check and the session insert,
 * while concurrent session creations do not wait on each other.
 */
export async function resolveAgentVersion(
  tx: ServiceContext,
  input: { agentId?: string | undefined; agentVersionId?: string | undefined; anyVersion?: boolean | undefined },
): Promise<{ agent: AgentRow; version: AgentVersionRow }> {
  const actor = requireActor(tx);
  let agentId = input.agentId;
  if (agentId === undefined) {
    if (input.agentVersionId === undefined) throw new ValidationError('Give agentId or agentVersionId', { path: 'body.agentId' });
    const [named] = await tx.db
      .select({ agentId: agentVersions.agentId })
      .from(agentVersions)
      .where(and(eq(agentVersions.id, input.agentVersionId), eq(agentVersions.projectId, actor.projectId)));
    if (!named) throw new NotFoundError('No agent version with that id in this project');
    agentId = named.agentId;
  }
  // The agent with its latest version in one statement (the common case needs nothing else); the
  // share lock is on the agent row only.
  const [found] = await tx.db
    .select({ agent: agents, latest: agentVersions })
    .from(agents)
    .leftJoin(agentVersions, eq(agentVersions.id, agents.latestVersionId))
    .where(and(eq(agents.id, agentId), eq(agents.projectId, actor.projectId), isNull(agents.deletedAt)))
    .for('share', { of: agents });
  const agent = found?.agent;
  if (!agent || !agent.latestVersionId || !found.latest) throw new NotFoundError('No agent with that id in this project');
  if (input.anyVersion && input.agentVersionId !== undefined) {
    // Opted in: any version of this live agent (a session to try or keep an older version).
    const [named] = await tx.db
      .select()
      .from(agentVersions)
      .where(and(eq(agentVersions.id, input.agentVersionId), eq(agentVersions.agentId, agent.id)));
    if (!named) throw new NotFoundError('No version with that id of this agent', { path: 'body.agentVersionId' });
    return { agent, version: named };
  }
  if (input.agentVersionId !== undefined && input.agentVersionId !== agent.latestVersionId) {
    throw new ValidationError("agentVersionId must be the agent's latest published version", {
      path: 'body.agentVersionId',
      latestVersionId: agent.latestVersionId,
    });
  }
  return { agent, version: found.latest };
}
