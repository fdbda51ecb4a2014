import type { Delegate, ToolDefinition } from '../agent-config/index.ts';

/**
 * Delegation in runs: a coordinator with `delegates` mounts `delegate_agent` (start a new child
 * session of a delegate and run it; several calls of one turn run at once, up to the delegate's
 * `maxParallel`) and `message_agent` (continue a child session once its latest run has settled,
 * named by `childSessionId` when the delegate has several). The child's final answer is the tool
 * result.
 */
export const DELEGATE_AGENT_TOOL = 'delegate_agent';
export const MESSAGE_AGENT_TOOL = 'message_agent';
export const DELEGATION_TOOLS: readonly string[] = [DELEGATE_AGENT_TOOL, MESSAGE_AGENT_TOOL];

export const DELEGATION_MESSAGE_MAX_LENGTH = 100_000;

/** The two delegation tools for a coordinator's delegates. */
export function delegationToolDefinitions(delegates: readonly Delegate[]): ToolDefinition[] {
  if (delegates.length === 0) return [];
  const roster = delegates.map((delegate) => `- ${delegate.key}: ${delegate.description}`).join('\n');
  const input = {
    type: 'object',
    properties: {
      delegateKey: { type: 'string', enum: delegates.map((delegate) => delegate.key) },
      message: { type: 'string', minLength: 1, maxLength: DELEGATION_MESSAGE_MAX_LENGTH },
    },
    required: ['delegateKey', 'message'],
    additionalProperties: false,
  } as ToolDefinition['inputSchema'];
  const followUp = {
    ...input,
    properties: {
      ...(input as { properties: Record<string, unknown> }).properties,
      childSessionId: {
        type: 'string',
        minLength: 36,
        maxLength: 36,
        description: `The child session (from ${DELEGATE_AGENT_TOOL}'s answer) when the agent has several.`,
      },
    },
  } as ToolDefinition['inputSchema'];
  const output = { type: 'object', properties: {}, required: [], additionalProperties: true } as ToolDefinition['outputSchema'];
  return [
    {
      schemaVersion: 1,
      name: DELEGATE_AGENT_TOOL,
      description: `Hands a task to a new session of another agent and returns its final answer (continue that session with ${MESSAGE_AGENT_TOOL}). Several calls in one turn run at the same time. Agents:\n${roster}`,
      owner: 'platform',
      approval: 'never',
      inputSchema: input,
      outputSchema: output,
    },
    {
      schemaVersion: 1,
      name: MESSAGE_AGENT_TOOL,
      description: `Sends a follow-up message to an agent's session started with ${DELEGATE_AGENT_TOOL} and returns its answer.`,
      owner: 'platform',
      approval: 'never',
      inputSchema: followUp,
      outputSchema: output,
    },
  ];
}
