import * as v from 'valibot';
import { RUN_STATES } from '../runs/states.ts';
import { Cost, Id, page, Timestamp } from './common.ts';

/** `failure` of a failed, cancelled or timed-out run: a stable code and a safe explanation. */
export const RunFailureShape = v.strictObject({ errorCode: v.string(), errorExplanation: v.string() });

/** The run object of spec 1, plus `failure` (null unless failed, cancelled or timed out). */
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * The context meter (docs/decisions/context-compaction.md): the input tokens of the latest model
 * call that read the session's thread, the model's context window when known, and how many
 * times the conversation was compacted.
 */
export const ContextMeterShape = v.strictObject({ lastInputTokens: v.nullable(Count), window: v.nullable(Count), compactions: Count });

export const PublicRunShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  threadId: Id,
  sessionId: Id,
  agentVersionId: Id,
  createdByPrincipalId: v.nullable(Id),
  state: v.picklist(RUN_STATES),
  inputPublic: v.strictObject({ message: v.string() }),
  idempotencyKey: v.nullable(v.string()),
  cancellationRequestedAt: v.nullable(Timestamp),
  admittedAt: v.nullable(Timestamp),
  settledAt: v.nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  failure: v.nullable(RunFailureShape),
  /** The run's own usage: its completed model calls' tokens and their cost. */
  inputTokens: Count,
  outputTokens: Count,
  cacheReadTokens: Count,
  cacheWriteTokens: Count,
  cost: Cost,
  context: ContextMeterShape,
});

/** Attachment metadata on a user message: never the bytes. */
export const AttachmentMetadataShape = v.strictObject({
  id: Id,
  filename: v.string(),
  contentType: v.string(),
  sizeBytes: Count,
  sha256: v.string(),
  createdAt: Timestamp,
});

/**
 * A transcript message as the API shows it: user text and the assistant's final reply; tool
 * calls and results only as summaries (never arguments or values).
 */
export const PublicMessageShape = v.strictObject({
  id: Id,
  threadId: Id,
  runId: Id,
  sequence: Count,
  role: v.picklist(['user', 'assistant', 'tool']),
  text: v.nullable(v.string()),
  toolCalls: v.array(v.strictObject({ toolCallId: v.string(), toolName: v.string() })),
  toolResult: v.nullable(v.strictObject({ toolCallId: v.string(), toolName: v.string(), isError: v.boolean() })),
  attachments: v.array(AttachmentMetadataShape),
  createdAt: Timestamp,
});
export const MessagePageShape = page(PublicMessageShape);

/** One bar of a run's timing waterfall: the queue, the execution, or one model invocation. */
export const TimelineEntryShape = v.strictObject({
  entrySequence: v.pipe(v.number(), v.integer(), v.minValue(1)),
  runId: Id,
  kind: v.picklist(['queue', 'execution', 'model_invocation']),
  modelInvocationId: v.nullable(Id),
  turnId: v.nullable(v.string()),
  attempt: v.nullable(v.pipe(v.number(), v.integer())),
  /** The run state (run phases) or the invocation status (`started`, `succeeded`, `failed`). */
  status: v.string(),
  finishReason: v.nullable(v.string()),
  errorCode: v.nullable(v.string()),
  startedAt: Timestamp,
  /** Null while the phase or call is still going on. */
  completedAt: v.nullable(Timestamp),
  durationMs: v.nullable(Count),
});
export const TimelinePageShape = page(TimelineEntryShape);
