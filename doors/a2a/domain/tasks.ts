import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import type { RunState } from '../../../domain/runs/states.ts';

/**
 * How our runs read as A2A tasks (docs/decisions/a2a-door.md): a task is a run, its `contextId`
 * the run's session; the history is the run's messages (the caller's input, the agent's text
 * replies), the one artifact its answer (the last reply). Pure: the service reads, this shapes.
 */

export const ANSWER_ARTIFACT = 'answer';

const STATES: Record<RunState, TaskState> = {
  queued: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  retry_scheduled: TaskState.TASK_STATE_WORKING,
  waiting_for_tool: TaskState.TASK_STATE_INPUT_REQUIRED,
  waiting_for_approval: TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  timed_out: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
};
export const taskStateOf = (state: RunState): TaskState => STATES[state];

/** A2A's terminal and interrupted states: a blocking `SendMessage` returns on them. */
export const isFinalOrInterrupted = (state: TaskState) =>
  state === TaskState.TASK_STATE_COMPLETED ||
  state === TaskState.TASK_STATE_FAILED ||
  state === TaskState.TASK_STATE_CANCELED ||
  state === TaskState.TASK_STATE_REJECTED ||
  state === TaskState.TASK_STATE_INPUT_REQUIRED ||
  state === TaskState.TASK_STATE_AUTH_REQUIRED;

export const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' });
export const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });

export function agentMessage(input: { messageId: string; contextId: string; taskId: string; parts: Part[] }): Message {
  return { ...input, role: Role.ROLE_AGENT, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export function answerArtifact(text: string): Artifact {
  return { artifactId: ANSWER_ARTIFACT, name: 'answer', description: "The agent's answer", parts: [textPart(text)], metadata: undefined, extensions: [] };
}

/** What a waiting run waits for, as the status message of an input-required task says it. */
export type PendingInput = {
  approvals: Array<{ approvalId: string; toolName: string; expiresAt: string }>;
  toolCalls: Array<{ toolCallId: string; toolName: string; arguments: unknown }>;
};

/**
 * The status message of an input-required task: what it waits for in words, and as a data part
 * (`{"pending": {...}}`), with how to answer: a message on the task whose data part is
 * `{"approval": {"approvalId", "decision": "approve" | "deny", "note"?}}` or
 * `{"toolResult": {"toolCallId", "value"} | {"toolCallId", "error"}}`.
 */
export function inputRequiredParts(pending: PendingInput): Part[] {
  const lines = [
    ...pending.approvals.map(
      (approval) =>
        `Waiting for approval of the tool ${approval.toolName} (approval ${approval.approvalId}). Answer on this task with a data part {"approval": {"approvalId": "${approval.approvalId}", "decision": "approve"}} or "deny".`,
    ),
    ...pending.toolCalls.map(
      (call) =>
        `Waiting for the result of your tool ${call.toolName} (call ${call.toolCallId}). Answer on this task with a data part {"toolResult": {"toolCallId": "${call.toolCallId}", "value": ...}} (or "error": "..." when it failed).`,
    ),
  ];
  return [textPart(lines.join('\n') || 'Waiting for input.'), dataPart({ pending })];
}

/** The facts a task is built from. */
export type TaskFacts = {
  runId: string;
  sessionId: string;
  agentId: string;
  state: RunState;
  updatedAt: string;
  failure: { code: string; message: string } | null;
  messages: Array<{ id: string; role: 'user' | 'agent'; text: string }>;
  pending: PendingInput | null;
};

export function taskOf(facts: TaskFacts, options: { historyLength?: number | undefined; includeArtifacts?: boolean } = {}): Task {
  const state = taskStateOf(facts.state);
  const history = facts.messages.map<Message>((message) =>
    message.role === 'agent'
      ? agentMessage({ messageId: message.id, contextId: facts.sessionId, taskId: facts.runId, parts: [textPart(message.text)] })
      : { ...agentMessage({ messageId: message.id, contextId: facts.sessionId, taskId: facts.runId, parts: [textPart(message.text)] }), role: Role.ROLE_USER },
  );
  const answer = facts.state === 'completed' ? facts.messages.filter((message) => message.role === 'agent').at(-1) : undefined;
  return {
    id: facts.runId,
    contextId: facts.sessionId,
    status: { state, message: statusMessage(facts), timestamp: facts.updatedAt },
    artifacts: answer && options.includeArtifacts !== false ? [answerArtifact(answer.text)] : [],
    history: options.historyLength === undefined ? history : options.historyLength === 0 ? [] : history.slice(-options.historyLength),
    metadata: { agentId: facts.agentId, runState: facts.state },
  };
}

function statusMessage(facts: TaskFacts): Message | undefined {
  const ids = { contextId: facts.sessionId, taskId: facts.runId };
  if (facts.pending && taskStateOf(facts.state) === TaskState.TASK_STATE_INPUT_REQUIRED)
    return agentMessage({ messageId: `${facts.runId}:input-required`, ...ids, parts: inputRequiredParts(facts.pending) });
  if (facts.failure) return agentMessage({ messageId: `${facts.runId}:failure`, ...ids, parts: [textPart(`${facts.failure.code}: ${facts.failure.message}`)] });
  return undefined;
}
