import { eq, inArray } from 'drizzle-orm';
import { patchedMetadata } from '../domain/metadata.ts';
import { isOurId } from '../domain/ids.ts';
import { turnFields } from '../domain/content.ts';
import { compatAnthropicSessions } from '../tables.ts';
import { DEFAULT_ENVIRONMENT_ID } from '../domain/environments.ts';
import {
  agentRefOf,
  checkSessionExtras,
  checkSessionUpdate,
  initialMessagesOf,
  memoryStoreResourcesOf,
  renderSession,
  statusOf,
  type CmaSession,
  type CreateSessionParams,
  type UpdateSessionParams,
} from '../domain/sessions.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { requireActor } from '../../../services/kernel/require-actor.ts';
import type { RunStarterDeps } from '../../../services/kernel/run-starter.ts';
import { createFollowUpRun } from '../../../services/runtime/runs/index.ts';
import { findSession, type SessionRow } from '../../../services/runtime/runs/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { createSession } from '../../../services/runtime/sessions/index.ts';
import { listSessions } from '../../../services/runtime/sessions/index.ts';
import { updateSession } from '../../../services/runtime/sessions/index.ts';
import { archiveSession, deleteSession } from '../../../services/runtime/sessions/index.ts';
import { withTransaction } from '../../../services/kernel/transaction.ts';
import type { CreateSessionInput } from '../../../domain/sessions/inputs.ts';
import { sessionAgentOf, agentVersionIdOf, archivedAgent, isArchivedAgent } from './agents.ts';
import { findCompatEnvironment } from './environments.ts';

/** Claude Managed Agents sessions (`/compat/anthropic/v1/sessions`) over our session verbs. */

/**
 * A session pinned to the agent's latest version or the version named, idle, or with its first
 * `user.message` as its first run and any further ones as pending turns (`ifBusy: enqueue`), all
 * in one transaction.
 */
export async function createCompatSession({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: CreateSessionParams;
}): Promise<CmaSession> {
  const actor = requireActor(ctx);
  checkSessionExtras(input);
  const { agentId, version } = agentRefOf(input.agent);
  if (!isOurId(agentId)) throw new NotFoundError('No agent with that id in this project');
  const messages = initialMessagesOf(input);
  const memoryStores = memoryStoreResourcesOf(input);
  return withTransaction(ctx, async (tx) => {
    const environment = await findCompatEnvironment(tx, input.environment_id);
    if (environment.archivedAt) throw new ValidationError('The environment is archived', { error_code: 'environment_archived' });
    const agentVersionId = version === null ? undefined : await agentVersionIdOf(tx, agentId, version);
    const created = await createSession({
      ctx: tx,
      deps,
      input: {
        agentId,
        ...(agentVersionId ? { agentVersionId, anyVersion: true } : {}),
        ...(input.title ? { title: input.title } : {}),
        ...(memoryStores.length > 0 ? { memoryStores: memoryStores as CreateSessionInput['memoryStores'] } : {}),
        ...(messages[0] !== undefined ? turnFields(messages[0], 'initialMessage') : {}),
        idempotencyKey: null,
      },
    }).catch(async (error: unknown) => {
      // The core has no archived agent to start from (404); here the agent is still readable, so say why.
      if (error instanceof NotFoundError && (await isArchivedAgent(tx, agentId))) throw archivedAgent('started');
      throw error;
    });
    for (const message of messages.slice(1))
      await createFollowUpRun({ ctx: tx, deps, input: { sessionId: created.id, ...turnFields(message, 'message'), ifBusy: 'enqueue', idempotencyKey: null } });
    await tx.db.insert(compatAnthropicSessions).values({
      sessionId: created.id,
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      environmentId: environment.id,
      metadata: input.metadata ?? {},
    });
    return render(tx, await findSession({ ctx: tx, input: { sessionId: created.id } }), { environmentId: environment.id, metadata: input.metadata ?? {} });
  });
}

export async function getCompatSession({ ctx, input }: { ctx: ServiceContext; input: { sessionId: string } }): Promise<CmaSession> {
  if (!isOurId(input.sessionId)) throw new NotFoundError('No session with that id in this project');
  const session = await findSession({ ctx, input });
  const [extra] = await ctx.db.select().from(compatAnthropicSessions).where(eq(compatAnthropicSessions.sessionId, session.id));
  return render(ctx, session, extra ?? null);
}

/** Title (the session's own, through `updateSession`) and metadata (a patch: `null` deletes a key), in one transaction. */
export async function updateCompatSession({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sessionId: string; params: UpdateSessionParams };
}): Promise<CmaSession> {
  if (!isOurId(input.sessionId)) throw new NotFoundError('No session with that id in this project');
  checkSessionUpdate(input.params);
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const session = await findSession({ ctx: tx, input: { sessionId: input.sessionId } });
    if (input.params.title !== undefined) await updateSession({ ctx: tx, input: { sessionId: session.id, title: input.params.title } });
    const [extra] = await tx.db.select().from(compatAnthropicSessions).where(eq(compatAnthropicSessions.sessionId, session.id)).for('update');
    const metadata = patchedMetadata(extra?.metadata ?? {}, input.params.metadata);
    await tx.db
      .insert(compatAnthropicSessions)
      .values({
        sessionId: session.id,
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        environmentId: extra?.environmentId ?? DEFAULT_ENVIRONMENT_ID,
        metadata,
      })
      .onConflictDoUpdate({ target: compatAnthropicSessions.sessionId, set: { metadata } });
    return getCompatSession({ ctx: tx, input: { sessionId: session.id } });
  });
}

/** Archive (`POST /v1/sessions/{id}/archive`): the core's archive; the session is `terminated` from then on. */
export async function archiveCompatSession({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { sessionId: string };
}): Promise<CmaSession> {
  if (!isOurId(input.sessionId)) throw new NotFoundError('No session with that id in this project');
  return withTransaction(ctx, async (tx) => {
    await archiveSession({ ctx: tx, deps, input });
    return getCompatSession({ ctx: tx, input });
  });
}

/** Delete (`DELETE /v1/sessions/{id}`): the core's delete; every read of it is a 404 from then on. */
export async function deleteCompatSession({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { sessionId: string };
}): Promise<{ id: string; type: 'session_deleted' }> {
  if (!isOurId(input.sessionId)) throw new NotFoundError('No session with that id in this project');
  const deleted = await deleteSession({ ctx, deps, input });
  return { id: deleted.id, type: 'session_deleted' };
}

const SESSION_STATUSES = ['idle', 'running', 'rescheduling', 'terminated'] as const;

/**
 * Root sessions (a delegated child is its coordinator's business; archived ones only with
 * `include_archived`), newest activity first (`order=asc`: oldest), with the SDK's `agent_id`,
 * `agent_version`, `created_at[…]` and `statuses[]` filters; a page may come back short after the
 * status filter, its `next_page` still right.
 */
export async function listCompatSessions({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: {
    limit: number;
    page: string | undefined;
    agentId: string | undefined;
    agentVersion: number | undefined;
    statuses: string[];
    includeArchived: boolean;
    created: { gt?: Date; gte?: Date; lt?: Date; lte?: Date };
    order: 'asc' | 'desc';
  };
}): Promise<{ data: CmaSession[]; next_page: string | null; prev_page: null }> {
  for (const status of input.statuses) {
    if (!(SESSION_STATUSES as readonly string[]).includes(status)) throw new ValidationError(`statuses: unknown status ${status}`, { path: 'query.statuses' });
  }
  if (input.agentId !== undefined && !isOurId(input.agentId)) return { data: [], next_page: null, prev_page: null };
  const agentVersionId =
    input.agentId !== undefined && input.agentVersion !== undefined ? await agentVersionIdOrNull(ctx, input.agentId, input.agentVersion) : undefined;
  if (agentVersionId === null) return { data: [], next_page: null, prev_page: null };
  const page = await listSessions({
    ctx,
    input: {
      limit: Math.min(input.limit, 200),
      root: true,
      order: input.order,
      created: input.created,
      ...(input.includeArchived ? {} : { archived: false }),
      ...(input.page ? { cursor: input.page } : {}),
      ...(input.agentId ? { agentId: input.agentId } : {}),
      ...(agentVersionId ? { agentVersionId } : {}),
    },
  });
  const ids = page.data.map((session) => session.id);
  const extras = ids.length === 0 ? [] : await ctx.db.select().from(compatAnthropicSessions).where(inArray(compatAnthropicSessions.sessionId, ids));
  const extraOf = new Map(extras.map((row) => [row.sessionId, row]));
  const data: CmaSession[] = [];
  for (const item of page.data) {
    if (
      input.statuses.length > 0 &&
      !input.statuses.includes(statusOf({ status: item.status, archivedAt: item.archivedAt ? new Date(item.archivedAt) : null }))
    )
      continue;
    const session = await findSession({ ctx, input: { sessionId: item.id } });
    data.push(await render(ctx, session, extraOf.get(item.id) ?? null));
  }
  return { data, next_page: page.pageInfo.nextCursor, prev_page: null };
}

/** The id of an agent's version `version`, or null when it has none (a filter that matches nothing). */
async function agentVersionIdOrNull(ctx: ServiceContext, agentId: string, version: number): Promise<string | null> {
  try {
    return await agentVersionIdOf(ctx, agentId, version);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

async function render(
  ctx: ServiceContext,
  session: SessionRow,
  extra: { environmentId: string; metadata: Record<string, string> } | null,
): Promise<CmaSession> {
  return renderSession({
    session,
    ...(await sessionAgentOf(ctx, session.agentVersionId)),
    environmentId: extra?.environmentId ?? DEFAULT_ENVIRONMENT_ID,
    metadata: extra?.metadata ?? {},
    now: ctx.clock.now(),
  });
}
