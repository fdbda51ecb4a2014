import type { HarnessOperation, ToolDefinition } from '../agent-config/index.ts';

/**
 * Harness Operations in runs: each operation of the pinned version is a platform tool named by
 * its key with the fixed input `{task}` and its `resultSchema` as the result schema. A call runs a
 * focused sub-loop inside the run's workflow (docs/decisions/harness-operation-sub-loop.md), whose
 * turns have their own turn ids and thread.
 */

const OPERATION_TURN = /^op:([0-9a-f-]{36}):turn-(\d+)$/;

/** The turn id of sub-loop turn `turn` of the operation call `toolCallId`. */
export const operationTurnId = (toolCallId: string, turn: number) => `op:${toolCallId}:turn-${turn}`;

/** The operation call a turn id belongs to, or null for a turn of the run itself. */
export function operationCallOfTurn(turnId: string): string | null {
  return OPERATION_TURN.exec(turnId)?.[1] ?? null;
}

/** The step key of an operation's task message in its thread. */
export const operationTaskStepKey = (toolCallId: string) => `op:${toolCallId}:task`;

export const OPERATION_TASK_MAX_LENGTH = 100_000;

/** An operation as the tool the parent model calls. */
export function operationToolDefinition(operation: HarnessOperation): ToolDefinition {
  return {
    schemaVersion: 1,
    name: operation.key,
    description: operation.description,
    owner: 'platform',
    approval: 'never',
    inputSchema: {
      type: 'object',
      properties: { task: { type: 'string', minLength: 1, maxLength: OPERATION_TASK_MAX_LENGTH } },
      required: ['task'],
      additionalProperties: false,
    } as ToolDefinition['inputSchema'],
    outputSchema: operation.resultSchema as ToolDefinition['outputSchema'],
  };
}

/** The sub-loop's instructions: the parent's rendered instructions, then the operation's own and the answer format. */
export function renderOperationInstructions(parentInstructions: string, operation: HarnessOperation): string {
  return [
    parentInstructions,
    '',
    `## Operation: ${operation.key}`,
    operation.instructions,
    '',
    'Work on the task you are given with the tools you have. When you are done, answer with only a JSON object (no prose, no code fence) that matches this JSON Schema:',
    JSON.stringify(operation.resultSchema),
  ].join('\n');
}

/** The result object of a sub-loop's final answer: its text as JSON (a code fence around it is tolerated), or null. */
export function parseOperationResult(text: string): Record<string, unknown> | null {
  const trimmed = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  try {
    const value: unknown = JSON.parse(trimmed);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What a tool call's debug record shows of a Harness Operation call. */
export type HarnessOperationExecutionRecord = {
  kind: 'harness_operation';
  operationKey: string;
  /** The sub-loop's own thread (its task, turns and tool results). */
  threadId: string | null;
  turns: number;
  durationMs: number;
  failureReason: 'invalid_result' | 'timed_out' | 'turn_budget_exhausted' | 'model_failed' | 'nested_operation' | null;
};
