import * as v from 'valibot';
import { MEMORY_ACCESS } from '../memory/attachments.ts';
import { SKILL_VERSION_STATUSES } from '../skills/lifecycle.ts';
import { SESSION_STATUSES } from '../runs/states.ts';
import { Cost, Id, page, Timestamp } from './common.ts';
import { SessionBudgetShape } from './usage.ts';
import { PublicDelegationShape } from './delegations.ts';
import { PublicProductEventShape } from './events.ts';
import { ContextMeterShape, PublicMessageShape, PublicRunShape, TimelineEntryShape } from './runs.ts';
import { PendingWorkShape, PublicApprovalShape, PublicToolCallShape } from './tool-calls.ts';

/** The session object of spec 1, plus `agentId` and `title`. */
export const PublicSessionShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  threadId: Id,
  agentId: Id,
  agentVersionId: Id,
  title: v.nullable(v.string()),
  status: v.picklist(SESSION_STATUSES),
  createdAt: Timestamp,
  lastActivityAt: Timestamp,
  latestRunId: v.nullable(Id),
  /** When the session was archived (read-only from then on), else `null`. */
  archivedAt: v.nullable(Timestamp),
  /** The session's budget (null: none); once spent, its next model call fails `budget_exceeded`. */
  budget: v.nullable(SessionBudgetShape),
});

/**
 * Where a fork's transcript came from. Not a named component: its two ids would make the client
 * generator describe unrelated shapes (approvals, tool calls) as extensions of it.
 */
const ForkedFrom = v.strictObject({ sessionId: Id, runId: Id });

const TokenCount = v.pipe(v.number(), v.integer(), v.minValue(0));

/** List items add the delegation fields and the cumulative token counters. */
export const PublicSessionListItemShape = v.strictObject({
  ...PublicSessionShape.entries,
  parentSessionId: v.nullable(Id),
  delegateKey: v.nullable(v.string()),
  inputTokens: TokenCount,
  outputTokens: TokenCount,
  cacheReadTokens: TokenCount,
  cacheWriteTokens: TokenCount,
  /** What the session's model calls cost, in the installation's currency. */
  cost: Cost,
  forkedFrom: v.nullable(ForkedFrom),
});

/** `POST /sessions`: the session with its first run (`null` for an idle session). */
export const CreatedSessionShape = v.strictObject({ ...PublicSessionShape.entries, run: v.nullable(PublicRunShape) });

/** `POST /sessions/{id}/fork`: the new session, where it came from, and how its workspace began. */
export const ForkedSessionShape = v.strictObject({
  ...PublicSessionShape.entries,
  run: v.nullable(PublicRunShape),
  forkedFrom: ForkedFrom,
  workspace: v.picklist(['copied', 'empty']),
});

/** A turn waiting for the session's active run to settle (`ifBusy: enqueue | interrupt`). */
export const PendingTurnShape = v.strictObject({
  id: Id,
  sessionId: Id,
  /** 1-based place among the session's pending turns, oldest first. */
  position: v.pipe(v.number(), v.integer(), v.minValue(1)),
  ifBusy: v.picklist(['enqueue', 'interrupt']),
  message: v.string(),
  attachments: v.array(
    v.strictObject({ id: Id, filename: v.string(), contentType: v.string(), sizeBytes: TokenCount, sha256: v.string(), createdAt: Timestamp }),
  ),
  createdAt: Timestamp,
});

/** `DELETE /sessions/{id}/pending-turns/{turnId}`. */
/** `DELETE /sessions/{id}`. */
export const SessionDeletedShape = v.strictObject({ id: Id, deleted: v.literal(true) });

export const PendingTurnWithdrawnShape = v.strictObject({ id: Id, withdrawn: v.literal(true) });

/** A follow-up accepted while the session was busy: it waits as a pending turn. */
export const QueuedTurnShape = v.strictObject({ queued: v.literal(true), pendingTurn: PendingTurnShape });

/** `POST /sessions/{id}/runs`: the new run, or the pending turn the follow-up waits as. */
export const FollowUpAnswerShape = v.union([PublicRunShape, QueuedTurnShape]);
export const SessionPageShape = page(PublicSessionListItemShape);

/** A Skill version the session bound at creation: metadata only, never instructions or bytes. */
export const PublicSessionSkillShape = v.strictObject({
  skillId: Id,
  skillVersionId: Id,
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  name: v.string(),
  description: v.string(),
  contentHash: v.string(),
  status: v.picklist(SKILL_VERSION_STATUSES),
});

/** A tool of the pinned agent version, without its schema. */
export const ToolSummaryShape = v.strictObject({
  name: v.string(),
  description: v.string(),
  owner: v.picklist(['caller', 'platform']),
  approval: v.picklist(['never', 'always']),
});

/** One provider attempt (debug `modelInvocations`). */
export const PublicModelInvocationShape = v.strictObject({
  id: Id,
  runId: Id,
  turnId: v.string(),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  status: v.picklist(['started', 'succeeded', 'failed']),
  inputTokens: TokenCount,
  outputTokens: TokenCount,
  cacheReadTokens: TokenCount,
  cacheWriteTokens: TokenCount,
  /** The attempt's cost at its preset's prices (0 while started, failed or unpriced). */
  cost: Cost,
  finishReason: v.nullable(v.string()),
  providerFinishReason: v.nullable(v.string()),
  errorCode: v.nullable(v.string()),
  errorExplanation: v.nullable(v.string()),
  thinking: v.nullable(v.string()),
  /** The model's context window when known. */
  contextWindow: v.nullable(TokenCount),
  startedAt: Timestamp,
  completedAt: v.nullable(Timestamp),
});

/**
 * An accepted context compaction (debug `compactions`): the summary the model reads in place of
 * the thread's messages through `throughSequence` (model-written text, like `thinking`).
 */
export const PublicCompactionShape = v.strictObject({
  compaction: v.pipe(v.number(), v.integer(), v.minValue(1)),
  runId: Id,
  turnId: v.string(),
  reason: v.picklist(['threshold', 'overflow']),
  tokensBefore: TokenCount,
  tokensAfter: TokenCount,
  messagesCovered: TokenCount,
  throughSequence: TokenCount,
  summary: v.string(),
  createdAt: Timestamp,
});

/** Session debug records: the workspace's sandbox, its backups and this session's sandbox commands. */
export const PublicSandboxShape = v.strictObject({
  id: Id,
  workspaceSessionId: Id,
  providerId: Id,
  snapshotId: Id,
  network: v.picklist(['none', 'restricted']),
  createdAt: Timestamp,
  lastUsedAt: Timestamp,
});
export const PublicWorkspaceBackupShape = v.strictObject({
  id: Id,
  workspaceSessionId: Id,
  runId: Id,
  generation: v.pipe(v.number(), v.integer(), v.minValue(1)),
  storageProviderId: Id,
  fileCount: TokenCount,
  totalBytes: TokenCount,
  archiveSizeBytes: TokenCount,
  archiveSha256: v.string(),
  createdAt: Timestamp,
});
/** Bounded and redacted: the kept tool answer never appears here. */
export const PublicSandboxCommandShape = v.strictObject({
  id: Id,
  sandboxId: Id,
  runId: Id,
  toolCallId: Id,
  toolName: v.string(),
  safeCommand: v.record(v.string(), v.unknown()),
  safeResult: v.nullable(v.record(v.string(), v.unknown())),
  startedAt: Timestamp,
  completedAt: v.nullable(Timestamp),
});

export const SessionDebugShape = v.strictObject({
  productEvents: v.array(PublicProductEventShape),
  modelInvocations: v.array(PublicModelInvocationShape),
  toolCalls: v.array(PublicToolCallShape),
  approvals: v.array(PublicApprovalShape),
  sandboxes: v.array(PublicSandboxShape),
  workspaceBackups: v.array(PublicWorkspaceBackupShape),
  sandboxCommands: v.array(PublicSandboxCommandShape),
  compactions: v.array(PublicCompactionShape),
});

/** A memory store the session attached, as it was then (docs/decisions/memory-stores.md). */
export const PublicSessionMemoryStoreShape = v.strictObject({
  storeId: Id,
  name: v.string(),
  description: v.string(),
  mountPath: v.string(),
  access: v.picklist(MEMORY_ACCESS),
  instructions: v.nullable(v.string()),
});

/** A memory version the session's runs wrote (never its content). */
export const SessionMemoryWriteShape = v.strictObject({
  runId: Id,
  storeId: Id,
  memoryId: Id,
  versionId: Id,
  operation: v.picklist(['created', 'modified', 'deleted']),
  path: v.nullable(v.string()),
  contentSizeBytes: v.nullable(TokenCount),
  createdAt: Timestamp,
});

/** `GET /sessions/{id}`: everything about one session (spec 1 "Session detail"). */
export const SessionDetailShape = v.strictObject({
  ...PublicSessionListItemShape.entries,
  runs: v.array(PublicRunShape),
  transcript: v.array(PublicMessageShape),
  timeline: v.array(TimelineEntryShape),
  pendingWork: PendingWorkShape,
  /** Turns waiting for the active run to settle, oldest first. */
  pendingTurns: v.array(PendingTurnShape),
  /** The context meter of the session's thread. */
  context: ContextMeterShape,
  debug: SessionDebugShape,
  skills: v.array(PublicSessionSkillShape),
  tools: v.array(ToolSummaryShape),
  delegations: v.array(PublicDelegationShape),
  memoryStores: v.array(PublicSessionMemoryStoreShape),
  /** What its runs wrote to memory, oldest first. */
  memoryWrites: v.array(SessionMemoryWriteShape),
});

/** The regular files of the session's latest verified workspace backup, in path order. */
export const WorkspaceFileListShape = v.strictObject({
  data: v.array(v.strictObject({ name: v.string(), path: v.string(), sizeBytes: TokenCount })),
  generation: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
  backedUpAt: v.nullable(Timestamp),
  lastRunId: v.nullable(Id),
});
