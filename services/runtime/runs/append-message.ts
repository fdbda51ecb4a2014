import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { messages, runs, sessions, threads } from '../../../db/schema/index.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import type { MessageRole } from '../../../domain/sessions/messages.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { insertThreadMessage, messageCreatedEvent } from './insert-message.ts';
import type { MessageRow, RunRow } from './public.ts';

const ToolCall = v.looseObject({ id: v.string(), name: v.string() });

/** Stored content per role: the activities' model-neutral `ModelMessage` without `role`. */
const ContentByRole = {
  user: v.looseObject({ text: v.string() }),
  assistant: v.looseObject({ text: v.string(), toolCalls: v.optional(v.array(ToolCall)) }),
  tool: v.looseObject({ toolCallId: v.string(), toolName: v.string(), isError: v.optional(v.boolean()) }),
} as const;

const StepKey = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

/**
 * `threadId`: another thread of the run's project (a Harness Operation's); the session's thread by
 * default. `eventId`: the id its `message.created` must carry (a main-thread model turn's, known to
 * live output before the message commits); random by default.
 */
export type AppendRunMessageInput = {
  runId: string;
  stepKey: string;
  role: MessageRole;
  content: Record<string, unknown>;
  threadId?: string;
  eventId?: string;
  /** An assistant reply: the vendor's count of its request plus the reply (see `insertThreadMessage`). */
  contextTokens?: number;
};

/**
 * Appends a message of a run to its session's thread for the runtime (no actor needed),
 * idempotent on `(runId, stepKey)`: a repeat returns the message written first, unchanged, so
 * activity retries are safe. The sequence is allocated under the thread row's lock; the same
 * transaction appends `message.created` (ids, role, sequence — no text) and bumps the
 * session's `lastActivityAt`. The event is appended only with a new message, so a repeat never
 * writes a given `eventId` twice.
 */
export async function appendRunMessage(ctx: ServiceContext, input: AppendRunMessageInput, known?: MessageRun): Promise<MessageRow> {
  checkRunMessage(input);
  if (known && known.id !== input.runId) throw new Error("the run given is not the message's run");

  return withTransaction(ctx, async (tx) => {
    const run = known ?? (await tx.db.select().from(runs).where(eq(runs.id, input.runId)))[0];
    if (!run) throw new NotFoundError('No run with that id');
    // Under the thread lock, a concurrent writer of the same step has either committed (found
    // here, and returned unchanged: a repeat) or not started allocating yet.
    const threadId = input.threadId ?? run.threadId;
    const [thread] = await tx.db.select({ id: threads.id, projectId: threads.projectId }).from(threads).where(eq(threads.id, threadId)).for('update');
    if (!thread || thread.projectId !== run.projectId) throw new NotFoundError("No thread with that id in the run's project");
    const existing = await findStep(tx, threadId, input.runId, input.stepKey);
    if (existing) return existing;

    const message = await insertThreadMessage(tx, {
      organizationId: run.organizationId,
      projectId: run.projectId,
      threadId,
      runId: run.id,
      stepKey: input.stepKey,
      role: input.role,
      content: input.content,
      ...(input.contextTokens === undefined ? {} : { contextTokens: input.contextTokens }),
    });
    await tx.db.update(sessions).set({ lastActivityAt: message.createdAt }).where(eq(sessions.id, run.sessionId));
    await appendProductEvent(tx, {
      organizationId: run.organizationId,
      projectId: run.projectId,
      ...messageCreatedEvent(message, run.sessionId),
      ...(input.eventId ? { id: input.eventId } : {}),
    });
    return message;
  });
}

/** A run message's step key and content as its role stores them; a `ValidationError` otherwise. */
export function checkRunMessage(input: Pick<AppendRunMessageInput, 'stepKey' | 'role' | 'content'>): void {
  if (!v.is(StepKey, input.stepKey)) throw new ValidationError('stepKey must be 1-200 characters');
  const schema = ContentByRole[input.role];
  if (!schema) throw new ValidationError(`Unknown message role ${String(input.role)}`);
  const content = v.safeParse(schema, input.content);
  if (!content.success) throw new ValidationError(`Invalid ${input.role} message content: ${content.issues[0].message}`);
}

/** The run's ids a message and its event carry; `known` saves reading the run again. */
export type MessageRun = Pick<RunRow, 'id' | 'organizationId' | 'projectId' | 'sessionId' | 'threadId'>;

async function findStep(tx: ServiceContext, threadId: string, runId: string, stepKey: string): Promise<MessageRow | undefined> {
  const [row] = await tx.db
    .select()
    .from(messages)
    .where(and(eq(messages.threadId, threadId), eq(messages.runId, runId), eq(messages.stepKey, stepKey)));
  return row;
}
