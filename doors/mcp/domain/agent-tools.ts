import * as v from 'valibot';
import { RUN_STATES } from '../../../domain/runs/states.ts';
import { MESSAGE_TEXT_MAX_LENGTH } from '../../../domain/sessions/limits.ts';
import { isUuid } from '../../../domain/uuid.ts';

/** An MCP tool as `tools/list` shows it (the specification's `Tool`, the fields this door fills). */
export type AgentToolDescriptor = {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required: string[] };
  outputSchema: { type: 'object'; properties: Record<string, object>; required: string[] };
};

/** Every agent tool takes the same arguments: the message, and the conversation it continues. */
export const AGENT_TOOL_INPUT_SCHEMA: AgentToolDescriptor['inputSchema'] = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'What to say to the agent', minLength: 1, maxLength: MESSAGE_TEXT_MAX_LENGTH },
    sessionId: { type: 'string', description: 'continue this conversation (the sessionId of an earlier answer of this tool)' },
  },
  required: ['message'],
};

/**
 * What a call answers in `structuredContent`: the conversation and the run always, the answer once
 * the run completed, the failure of a run that did not, what a waiting run waits for.
 */
export const AGENT_TOOL_OUTPUT_SCHEMA: AgentToolDescriptor['outputSchema'] = {
  type: 'object',
  properties: {
    answer: { type: 'string', description: "The agent's reply" },
    sessionId: { type: 'string', description: 'Pass it back as `sessionId` to continue this conversation' },
    runId: { type: 'string', description: "The run of this turn (GET /v1/projects/{projectId}/runs/{runId} on the service's API)" },
    state: { type: 'string', enum: [...RUN_STATES], description: "The run's state when the call answered" },
    failure: {
      type: 'object',
      properties: { errorCode: { type: 'string' }, errorExplanation: { type: 'string' } },
      required: ['errorCode', 'errorExplanation'],
    },
    waitingFor: {
      type: 'object',
      properties: {
        toolCalls: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'string' }, toolName: { type: 'string' } }, required: ['id', 'toolName'] },
        },
        approvals: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, toolName: { type: 'string' }, toolCallId: { type: 'string' }, expiresAt: { type: 'string' } },
            required: ['id', 'toolName', 'toolCallId', 'expiresAt'],
          },
        },
      },
      required: ['toolCalls', 'approvals'],
    },
  },
  required: ['sessionId', 'runId', 'state'],
};

/** The tool of one agent: its name (tool-names.ts), its description (else its name) and the shared schemas. */
export function agentToolOf(name: string, agent: { name: string; description: string }): AgentToolDescriptor {
  return {
    name,
    title: agent.name,
    description: agent.description.trim() || agent.name,
    inputSchema: AGENT_TOOL_INPUT_SCHEMA,
    outputSchema: AGENT_TOOL_OUTPUT_SCHEMA,
  };
}

/** A call's arguments as the input schema says; other arguments are ignored. */
export const AgentToolArguments = v.object(
  {
    message: v.pipe(
      v.string('message must be a string'),
      v.check((text) => text.trim() !== '', 'message must not be empty'),
      v.maxLength(MESSAGE_TEXT_MAX_LENGTH, `message must be at most ${MESSAGE_TEXT_MAX_LENGTH.toLocaleString('en-US')} characters`),
    ),
    sessionId: v.optional(v.pipe(v.string('sessionId must be a string'), v.check(isUuid, 'sessionId must be the sessionId of an earlier answer of this tool'))),
  },
  'The arguments must be an object with a "message" string',
);
export type AgentToolArguments = v.InferOutput<typeof AgentToolArguments>;

/** The arguments, or the first problem with them in words the caller can act on. */
export function parseAgentToolArguments(input: unknown): { ok: true; value: AgentToolArguments } | { ok: false; message: string } {
  const parsed = v.safeParse(AgentToolArguments, input ?? {});
  if (parsed.success) return { ok: true, value: parsed.output };
  const issue = parsed.issues[0];
  const missing = issue.kind === 'schema' && issue.input === undefined && issue.path?.[0]?.key === 'message';
  return { ok: false, message: missing ? 'The "message" argument is required' : issue.message };
}
