import type * as v from 'valibot';
import type { SessionDetailShape } from '../../../domain/public-shapes/sessions.ts';
import { and, asc, desc, eq, inArray, or } from 'drizzle-orm';
import {
  agentVersions,
  approvals,
  contextCompactions,
  messages,
  modelInvocations,
  productEvents,
  runs,
  sandboxCommands,
  sandboxes,
  toolCalls,
  workspaceBackups,
} from '../../../db/schema/index.ts';
import { toolsOf, type AgentConfig } from '../../../domain/agent-config/index.ts';
import { buildRunTimeline } from '../../../domain/sessions/timeline.ts';
import { sessionMemoryWrites } from '../../configuration/memory-stores/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { loadSessionSkills } from '../runs/index.ts';
import { delegationsOfSession } from '../delegations/index.ts';
import { toPublicEvent } from '../../kernel/events/index.ts';
import { contextMeterOf, toMessageResponse, toRunResponse } from '../runs/index.ts';
import { toApprovalResponse, toToolCallResponse } from '../tool-calls/index.ts';
import { readPendingWork } from '../tool-calls/index.ts';
import { findSession } from '../runs/index.ts';
import { listPendingTurns } from '../runs/index.ts';
import { toCompactionResponse, toModelInvocationResponse, toSessionListItem, type PublicSessionSkill } from './public.ts';
import { workspaceOwnerOf } from '../sandboxes/index.ts';
import { toSandboxCommandResponse, toSandboxResponse, toWorkspaceBackupResponse } from '../sandboxes/index.ts';

/** The newest product events of a session shown in `debug` (older ones stay in the event feed). */
export const SESSION_DEBUG_EVENT_LIMIT = 1000;

/** The session detail (`SessionDetailShape`). */
export type SessionDetail = v.InferOutput<typeof SessionDetailShape>;

/**
 * Everything about one session (`GET /sessions/{id}`): its runs oldest first, the redacted
 * transcript, the timing waterfall of every run, pending work, debug records, the Skills it
 * bound at creation and the tools of its pinned version. `pendingWork` is the actionable part of
 * the session's tool calls and approvals; `debug` lists all of them, with the workspace's
 * sandbox, backups and this session's sandbox commands. Delegations are empty until they exist.
 */
export async function getSession({ ctx, input }: { ctx: ServiceContext; input: { sessionId: string } }): Promise<SessionDetail> {
  const session = await findSession({ ctx, input: { sessionId: input.sessionId } });
  const scope = { projectId: session.projectId };
  const runRows = await ctx.db
    .select()
    .from(runs)
    .where(and(eq(runs.sessionId, session.id), eq(runs.projectId, scope.projectId)))
    .orderBy(asc(runs.createdAt), asc(runs.id));
  const runIds = runRows.map((run) => run.id);
  const messageRows = await ctx.db
    .select()
    .from(messages)
    .where(and(eq(messages.threadId, session.threadId), eq(messages.projectId, scope.projectId)))
    .orderBy(asc(messages.sequence));
  const invocationRows = runIds.length
    ? await ctx.db
        .select()
        .from(modelInvocations)
        .where(and(inArray(modelInvocations.runId, runIds), eq(modelInvocations.projectId, scope.projectId)))
        .orderBy(asc(modelInvocations.startedAt), asc(modelInvocations.turnId), asc(modelInvocations.attempt))
    : [];
  const [version] = await ctx.db.select({ config: agentVersions.config }).from(agentVersions).where(eq(agentVersions.id, session.agentVersionId));
  const toolCallRows = runIds.length
    ? await ctx.db
        .select()
        .from(toolCalls)
        .where(and(inArray(toolCalls.runId, runIds), eq(toolCalls.projectId, scope.projectId)))
        .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id))
    : [];
  const approvalRows = runIds.length
    ? await ctx.db
        .select({ approval: approvals, call: { sessionId: toolCalls.sessionId, toolName: toolCalls.toolName } })
        .from(approvals)
        .innerJoin(toolCalls, eq(toolCalls.id, approvals.toolCallId))
        .where(and(inArray(approvals.runId, runIds), eq(approvals.projectId, scope.projectId)))
        .orderBy(asc(approvals.createdAt), asc(approvals.id))
    : [];

  return {
    ...toSessionListItem(session),
    runs: runRows.map(toRunResponse),
    transcript: messageRows.map(toMessageResponse),
    timeline: runRows.flatMap((run) => buildRunTimeline(run, invocationRows)),
    pendingWork: await readPendingWork(ctx, { projectId: scope.projectId, runIds }),
    pendingTurns: await listPendingTurns(ctx.db, session.id),
    context: contextMeterOf(session),
    debug: {
      productEvents: await sessionEvents(ctx, {
        projectId: scope.projectId,
        sessionId: session.id,
        runIds,
        messageIds: messageRows.map((m) => m.id),
        toolCallIds: toolCallRows.map((row) => row.id),
        approvalIds: approvalRows.map((row) => row.approval.id),
      }),
      modelInvocations: invocationRows.map(toModelInvocationResponse),
      toolCalls: toolCallRows.map(toToolCallResponse),
      approvals: approvalRows.map((row) => toApprovalResponse(row.approval, row.call)),
      ...(await workspaceDebug(ctx, { projectId: scope.projectId, sessionId: session.id, runIds })),
      compactions: await sessionCompactions(ctx, { projectId: scope.projectId, threadId: session.threadId }),
    },
    skills: await sessionSkills(ctx, session.id),
    // Stored configs are the parsed, defaulted form (agent_versions.config), so the cast holds.
    tools: version ? toolsOf(version.config as unknown as AgentConfig) : [],
    delegations: await delegationsOfSession({ ctx, input: { coordinatorSessionId: session.id } }),
    memoryStores: session.memoryStores.map(({ storeId, name, description, mountPath, access, instructions }) => ({
      storeId,
      name,
      description,
      mountPath,
      access,
      instructions,
    })),
    memoryWrites: await sessionMemoryWrites(ctx, { projectId: scope.projectId, sessionId: session.id }),
  };
}

/** Events of the session, its runs, messages, tool calls and approvals, and its memory writes, in project-position order (never message content). */
async function sessionEvents(
  ctx: ServiceContext,
  input: { projectId: string; sessionId: string; runIds: string[]; messageIds: string[]; toolCallIds: string[]; approvalIds: string[] },
) {
  const aggregates = [
    and(eq(productEvents.aggregateType, 'session'), eq(productEvents.aggregateId, input.sessionId)),
    input.runIds.length ? and(eq(productEvents.aggregateType, 'run'), inArray(productEvents.aggregateId, input.runIds)) : undefined,
    input.messageIds.length ? and(eq(productEvents.aggregateType, 'message'), inArray(productEvents.aggregateId, input.messageIds)) : undefined,
    input.toolCallIds.length ? and(eq(productEvents.aggregateType, 'tool_call'), inArray(productEvents.aggregateId, input.toolCallIds)) : undefined,
    // What its runs wrote to memory stores (their events name the session).
    and(eq(productEvents.aggregateType, 'memory_store'), eq(productEvents.sessionId, input.sessionId)),
    input.approvalIds.length ? and(eq(productEvents.aggregateType, 'approval'), inArray(productEvents.aggregateId, input.approvalIds)) : undefined,
  ];
  const newest = await ctx.db
    .select()
    .from(productEvents)
    .where(and(eq(productEvents.projectId, input.projectId), or(...aggregates)))
    .orderBy(desc(productEvents.projectPosition))
    .limit(SESSION_DEBUG_EVENT_LIMIT);
  return newest.reverse().map((row) => toPublicEvent(row, { includeMessage: false }));
}

/** The accepted compactions of the session's thread, oldest first, with their summaries. */
async function sessionCompactions(ctx: ServiceContext, input: { projectId: string; threadId: string }) {
  const rows = await ctx.db
    .select()
    .from(contextCompactions)
    .where(and(eq(contextCompactions.threadId, input.threadId), eq(contextCompactions.projectId, input.projectId), eq(contextCompactions.status, 'accepted')))
    .orderBy(asc(contextCompactions.number));
  return rows.map(toCompactionResponse);
}

/** The bound Skill versions in binding order: metadata and lifecycle status only (never instructions or bytes). */
async function sessionSkills(ctx: ServiceContext, sessionId: string): Promise<PublicSessionSkill[]> {
  return (await loadSessionSkills(ctx.db, sessionId)).map((skill) => ({
    skillId: skill.skillId,
    skillVersionId: skill.skillVersionId,
    version: skill.version,
    name: skill.name,
    description: skill.description,
    contentHash: skill.contentHash,
    status: skill.status,
  }));
}

/** The session's workspace sandbox and backups (through its workspace owner) and its runs' sandbox commands. */
async function workspaceDebug(ctx: ServiceContext, input: { projectId: string; sessionId: string; runIds: string[] }) {
  const workspaceSessionId = await workspaceOwnerOf(ctx, input.sessionId);
  const sandboxRows = await ctx.db
    .select()
    .from(sandboxes)
    .where(and(eq(sandboxes.workspaceSessionId, workspaceSessionId), eq(sandboxes.projectId, input.projectId)));
  const backupRows = await ctx.db
    .select()
    .from(workspaceBackups)
    .where(and(eq(workspaceBackups.workspaceSessionId, workspaceSessionId), eq(workspaceBackups.projectId, input.projectId)))
    .orderBy(asc(workspaceBackups.generation));
  const commandRows = input.runIds.length
    ? await ctx.db
        .select()
        .from(sandboxCommands)
        .where(and(inArray(sandboxCommands.runId, input.runIds), eq(sandboxCommands.projectId, input.projectId)))
        .orderBy(asc(sandboxCommands.startedAt), asc(sandboxCommands.id))
    : [];
  return {
    sandboxes: sandboxRows.map(toSandboxResponse),
    workspaceBackups: backupRows.map(toWorkspaceBackupResponse),
    sandboxCommands: commandRows.map(toSandboxCommandResponse),
  };
}
