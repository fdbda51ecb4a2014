import { and, eq, inArray } from 'drizzle-orm';
import * as v from 'valibot';
import { agentVersions, delegationCalls, delegations, principals, runs, sessions, threads, toolCalls } from '../../../db/schema/index.ts';
import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { DELEGATE_AGENT_TOOL } from '../../../domain/runs/delegation.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { appendProductEvents, type ProductEventDraft } from '../../kernel/events/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { loadRunVersion } from '../runs/index.ts';
import { queueRun } from '../runs/index.ts';
import type { RunStarter } from '../../kernel/run-starter.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { copySkillBindings } from '../../configuration/skills/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';

const Arguments = v.object({ delegateKey: v.string(), message: v.pipe(v.string(), v.minLength(1)), childSessionId: v.optional(v.string()) });

export type DelegationStart =
  { kind: 'started'; childRunId: string; childSessionId: string; projectId: string; agentId: string } | { kind: 'refused'; message: string };

/**
 * The coordinator's workflow starts child runs itself (as Temporal child workflows), so queueing
 * one wakes nobody; the reconciler leaves delegated runs to their coordinator.
 */
const startedByCoordinator: RunStarter = { start: async () => {}, requestCancellation: async () => {}, notify: async () => {} };

/**
 * A `delegate_agent` or `message_agent` call of a run (for the runtime): `delegate_agent` creates
 * a new child session of the delegate (pinned to its exact version, with `parentSessionId` and
 * `delegateKey`, sharing the coordinator's workspace, with the version's Skill bindings) and
 * queues its first run with the message; `message_agent` queues the next run of a child session
 * of the key (the one named by `childSessionId`, or the only one) once its latest run has
 * settled. Runs are queued as the coordinator run's creator, each with its own budget.
 * Idempotent per tool call; refusals (no child yet, several and none named, a child still
 * working, a closed relation) are answers the model sees.
 */
export async function startDelegationCall({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { keyring: CredentialKeyring };
  input: { runId: string; toolCallId: string };
}): Promise<DelegationStart> {
  const [started] = await startDelegationCalls({ ctx, deps, input: { runId: input.runId, toolCallIds: [input.toolCallId] } });
  return started!.start;
}

/**
 * Several delegation calls of a run queued at once, in call order (a fan-out, issue 49), each as
 * `startDelegationCall` describes: the run, its version and creator read once, and every child
 * queued in one transaction under the coordinator session's lock, its events appended together.
 */
export async function startDelegationCalls({
  ctx,
  deps: _deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { keyring: CredentialKeyring };
  input: { runId: string; toolCallIds: readonly string[] };
}): Promise<Array<{ toolCallId: string; start: DelegationStart }>> {
  const done = await ctx.db
    .select({
      toolCallId: delegationCalls.toolCallId,
      childRunId: delegationCalls.childRunId,
      childSessionId: delegations.childSessionId,
      projectId: delegations.projectId,
      agentId: sessions.agentId,
    })
    .from(delegationCalls)
    .innerJoin(delegations, eq(delegations.id, delegationCalls.delegationId))
    .innerJoin(sessions, eq(sessions.id, delegations.childSessionId))
    .where(inArray(delegationCalls.toolCallId, [...input.toolCallIds]));
  const starts = new Map<string, DelegationStart>(done.map(({ toolCallId, ...start }) => [toolCallId, { kind: 'started', ...start }]));
  const rest = input.toolCallIds.filter((id) => !starts.has(id));
  if (rest.length > 0) {
    const { run, session: coordinator, agentVersion } = await loadRunVersion(ctx.db, input.runId);
    const rows = await ctx.db.select().from(toolCalls).where(inArray(toolCalls.id, rest));
    const callById = new Map(rows.map((row) => [row.id, row]));
    const calls = rest.map((id) => {
      const call = callById.get(id);
      if (!call || call.runId !== run.id) throw new NotFoundError('No tool call with that id in this run');
      return call;
    });
    const config = agentVersion.config as unknown as AgentConfig;
    const actor = await actorOf(ctx, run.createdByPrincipalId);
    await withTransaction({ ...ctx, actor }, async (tx) => {
      // The coordinator session's row orders concurrent calls for the same key.
      await tx.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, coordinator.id)).for('update');
      const events: ProductEventDraft[] = [];
      for (const call of calls) starts.set(call.id, await queueChildRun(tx, { run, coordinator, config, call, events }));
      if (events.length > 0) await appendProductEvents(tx, { organizationId: run.organizationId, projectId: run.projectId, events });
    });
  }
  return input.toolCallIds.map((toolCallId) => ({ toolCallId, start: starts.get(toolCallId)! }));
}

type QueueInput = {
  run: Awaited<ReturnType<typeof loadRunVersion>>['run'];
  coordinator: Awaited<ReturnType<typeof loadRunVersion>>['session'];
  config: AgentConfig;
  call: typeof toolCalls.$inferSelect;
  /** Where the call's product events go (appended by the caller, in the same transaction). */
  events: ProductEventDraft[];
};

/** One call's child session (for `delegate_agent`) and run, or its refusal, inside the caller's transaction. */
async function queueChildRun(tx: ServiceContext, { run, coordinator, config, call, events }: QueueInput): Promise<DelegationStart> {
  const { delegateKey, message, childSessionId } = v.parse(Arguments, call.safeArguments);
  const delegate = config.delegates.find((entry) => entry.key === delegateKey);
  if (!delegate) return { kind: 'refused', message: `"${delegateKey}" is not a delegate of this agent.` };
  const actor = tx.actor!;
  let delegationId: string;
  let child;
  if (call.toolName === DELEGATE_AGENT_TOOL) {
    // A `self` delegate runs the coordinator's own version (as a copy that does not delegate again).
    const versionId = delegate.self ? run.agentVersionId : delegate.agentVersionId!;
    const [version] = await tx.db.select().from(agentVersions).where(eq(agentVersions.id, versionId));
    if (!version) return { kind: 'refused', message: `The pinned version of "${delegateKey}" no longer exists.` };
    const now = tx.clock.now();
    const [thread] = await tx.db.insert(threads).values({ organizationId: run.organizationId, projectId: run.projectId, createdAt: now }).returning();
    [child] = await tx.db
      .insert(sessions)
      .values({
        organizationId: run.organizationId,
        projectId: run.projectId,
        threadId: thread!.id,
        agentId: version.agentId,
        agentVersionId: version.id,
        title: null,
        status: 'queued',
        parentSessionId: coordinator.id,
        delegateKey,
        createdByPrincipalId: actor.principalId,
        createdAt: now,
        lastActivityAt: now,
      })
      .returning();
    await copySkillBindings(tx, { sessionId: child!.id, organizationId: run.organizationId, projectId: run.projectId, config: version.config });
    const [relation] = await tx.db
      .insert(delegations)
      .values({
        organizationId: run.organizationId,
        projectId: run.projectId,
        coordinatorSessionId: coordinator.id,
        delegateKey,
        childSessionId: child!.id,
        childAgentVersionId: version.id,
        createdAt: now,
      })
      .returning();
    delegationId = relation!.id;
    events.push({
      aggregateType: 'session',
      aggregateId: child!.id,
      kind: EVENT_KINDS.sessionCreated,
      publicPayload: {
        sessionId: child!.id,
        threadId: thread!.id,
        agentId: version.agentId,
        agentVersionId: version.id,
        status: 'queued',
        parentSessionId: coordinator.id,
        delegateKey,
      },
    });
  } else {
    const children = await tx.db
      .select()
      .from(delegations)
      .where(and(eq(delegations.coordinatorSessionId, coordinator.id), eq(delegations.delegateKey, delegateKey)))
      .orderBy(delegations.createdAt, delegations.id);
    const picked = pickChild(delegateKey, children, childSessionId);
    if ('refused' in picked) return { kind: 'refused', message: picked.refused };
    const existing = picked.child;
    if (existing.closedAt) return { kind: 'refused', message: `The delegation to "${delegateKey}" was closed.` };
    [child] = await tx.db.select().from(sessions).where(eq(sessions.id, existing.childSessionId)).for('update');
    const [latest] = child!.latestRunId ? await tx.db.select({ state: runs.state }).from(runs).where(eq(runs.id, child!.latestRunId)) : [];
    if (latest && !isSettled(latest.state)) return { kind: 'refused', message: `"${delegateKey}" is still working on its previous message.` };
    delegationId = existing.id;
  }
  const queued = await queueRun(tx, { runStarter: startedByCoordinator }, { session: child!, text: message, idempotencyKey: null });
  await tx.db.insert(delegationCalls).values({ toolCallId: call.id, delegationId, childRunId: queued.run.id });
  events.push(...queued.events, {
    aggregateType: 'session',
    aggregateId: coordinator.id,
    kind: EVENT_KINDS.delegationRunQueued,
    publicPayload: {
      delegationId,
      sessionId: coordinator.id,
      coordinatorSessionId: coordinator.id,
      coordinatorRunId: run.id,
      toolCallId: call.id,
      delegateKey,
      childSessionId: child!.id,
      childRunId: queued.run.id,
    },
  });
  return { kind: 'started', childRunId: queued.run.id, childSessionId: child!.id, projectId: run.projectId, agentId: child!.agentId };
}

/** The child session a `message_agent` call continues: the one it names, else the key's only one. */
function pickChild<T extends { childSessionId: string }>(key: string, children: T[], named: string | undefined): { child: T } | { refused: string } {
  if (children.length === 0) return { refused: `"${key}" has no session with this coordinator yet; start one with delegate_agent.` };
  if (named !== undefined) {
    const child = children.find((entry) => entry.childSessionId === named);
    return child ? { child } : { refused: `"${key}" has no session ${named} with this coordinator.` };
  }
  if (children.length === 1) return { child: children[0]! };
  return {
    refused: `"${key}" has ${children.length} sessions with this coordinator; name one with childSessionId: ${children.map((entry) => entry.childSessionId).join(', ')}.`,
  };
}

/** The run creator as the actor its delegated runs are queued for. */
async function actorOf(ctx: ServiceContext, principalId: string | null): Promise<Actor> {
  if (!principalId) throw new Error('a delegating run has no creator');
  const [principal] = await ctx.db.select().from(principals).where(eq(principals.id, principalId));
  if (!principal) throw new NotFoundError("The run's creator no longer exists");
  return {
    principalId: principal.id,
    organizationId: principal.organizationId,
    projectId: principal.projectId,
    kind: principal.kind,
    subject: principal.subject,
    scopes: principal.scopes,
    displayName: principal.displayName,
    organizationRole: null,
    projectRole: null,
    apiKeyId: null,
  };
}
