import type { RunState } from '../../../domain/runs/states.ts';
import type { RunFailure } from '../../../domain/sessions/run-failure.ts';

/** How one call of an agent tool ended, as the door's verb reports it (services/call-agent.ts). */
export type TurnOutcome =
  | { kind: 'completed'; projectId: string; sessionId: string; runId: string; answer: string }
  | { kind: 'ended'; projectId: string; sessionId: string; runId: string; state: 'failed' | 'cancelled' | 'timed_out'; failure: RunFailure }
  | {
      kind: 'waiting';
      projectId: string;
      sessionId: string;
      runId: string;
      state: 'waiting_for_tool' | 'waiting_for_approval';
      toolCalls: Array<{ id: string; toolName: string }>;
      approvals: Array<{ id: string; toolName: string; toolCallId: string; expiresAt: string }>;
    }
  /** The caller cancelled the call: its run was asked to stop when the caller may cancel runs (`state` as it was then). */
  | { kind: 'withdrawn'; projectId: string; sessionId: string; runId: string; state: RunState; runCancelled: boolean };

/** A `tools/call` result (the specification's `CallToolResult`, the fields this door fills). */
export type AgentToolResult = {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** A call refused before any run started (bad arguments, an unknown or busy conversation): a tool error the model can act on. */
export const toolErrorOf = (message: string): AgentToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/**
 * The result of a call that ran: the answer of a completed run; a tool error with the failure of
 * one that failed, was cancelled or timed out; a tool error naming what a waiting run waits for and
 * the native routes that answer it (the call returns instead of holding the caller). Every result
 * carries the `sessionId` that continues the conversation.
 */
export function toolResultOf(outcome: TurnOutcome): AgentToolResult {
  const { sessionId, runId } = outcome;
  switch (outcome.kind) {
    case 'completed':
      return { content: [{ type: 'text', text: outcome.answer }], structuredContent: { answer: outcome.answer, sessionId, runId, state: 'completed' } };
    case 'ended': {
      const { state, failure } = outcome;
      const text = `The run ${endedWords[state]} (${failure.errorCode}): ${failure.errorExplanation} Conversation: sessionId ${sessionId}, run ${runId}.`;
      return { content: [{ type: 'text', text }], structuredContent: { sessionId, runId, state, failure }, isError: true };
    }
    case 'waiting': {
      const { state, toolCalls, approvals } = outcome;
      return {
        content: [{ type: 'text', text: waitingText(outcome) }],
        structuredContent: { sessionId, runId, state, waitingFor: { toolCalls, approvals } },
        isError: true,
      };
    }
    case 'withdrawn': {
      // Rarely read: a client that cancels a request ignores its answer.
      const run = outcome.runCancelled ? `run ${runId} was asked to stop` : `run ${runId} goes on (cancelling it needs the scope run:cancel)`;
      const text = `The call was cancelled; ${run}. Conversation: sessionId ${sessionId}.`;
      return { content: [{ type: 'text', text }], structuredContent: { sessionId, runId, state: outcome.state }, isError: true };
    }
  }
}

const endedWords = { failed: 'failed', cancelled: 'was cancelled', timed_out: 'timed out' } as const;

function waitingText(outcome: Extract<TurnOutcome, { kind: 'waiting' }>): string {
  const project = `/v1/projects/${outcome.projectId}`;
  const lines: string[] = [];
  if (outcome.state === 'waiting_for_approval') {
    lines.push('The run is waiting for approval and did not answer yet.');
    for (const approval of outcome.approvals) lines.push(`- approval ${approval.id} of a call of tool "${approval.toolName}" (expires ${approval.expiresAt})`);
    lines.push(
      `Decide each with POST ${project}/approvals/{approvalId}/decision and a body {"status": "approved"} or {"status": "denied"} (scope approval:resolve).`,
    );
  } else {
    lines.push('The run is waiting for the result of a tool the caller runs and did not answer yet.');
    for (const call of outcome.toolCalls) lines.push(`- tool call ${call.id} of tool "${call.toolName}"`);
    lines.push(
      `Claim each with POST ${project}/tool-calls/{toolCallId}/claim (scope tool_call:claim) and answer with POST ${project}/tool-calls/{toolCallId}/result (scope tool_call:submit).`,
    );
  }
  lines.push(
    `The run then goes on: follow it with GET ${project}/runs/${outcome.runId}; once it has ended, call this tool again with sessionId ${outcome.sessionId} to continue the conversation.`,
  );
  return lines.join('\n');
}
