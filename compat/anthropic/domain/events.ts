import type { AttachmentMetadata } from '../../../domain/attachments/metadata.ts';
import { userMessageContent } from './content.ts';
import { DELEGATE_AGENT_TOOL } from '../../../domain/runs/delegation.ts';
import { isUuid } from '../../../domain/uuid.ts';

/**
 * Our product events as Claude Managed Agents session events (docs/decisions/anthropic-compat-session-events.md). One product event yields zero or more CMA events with ids
 * `sevt_<productEventId>` (or `…_<k>` when it yields several), so the list and the stream give
 * identical ids in identical order. What the mapping needs beyond the event itself (a call's
 * name, arguments and result, the event that created it) comes in `facts`; the mapping keeps no
 * state between events.
 */

export type EventSource = { id: string; kind: string; publicPayload: Record<string, unknown>; message: Record<string, unknown> | null; occurredAt: Date };

/** What the mapping knows of a tool call. */
export type ToolCallFacts = {
  /** The id of its `tool_call.created` product event: the CMA tool-use event's id is derived from it. */
  createdEventId: string;
  toolName: string;
  owner: 'caller' | 'platform';
  arguments: unknown;
  approvalRequired: boolean;
  /** The CMA content blocks of its result (as sent through this API, else our result as JSON text). */
  resultBlocks: Array<Record<string, unknown>> | null;
  /** Its result value as recorded (a delegation's answer is in it). */
  resultValue?: unknown;
  failureMessage: string | null;
};

/** A child session a coordinator delegated to, as a thread of its session. */
export type ChildThreadFacts = { threadId: string; agentName: string };

export type EventFacts = {
  toolCalls: Map<string, ToolCallFacts>;
  /** A run that was a pending turn: the id of its `session.input_queued` event (its `user.message` keeps that id). */
  queuedMessageEventOfRun: Map<string, string>;
  /** The files of a run's user turn (its attachments, in order): event messages carry text only. */
  attachmentsOfRun: Map<string, AttachmentMetadata[]>;
  /** The child sessions delegation events name, by session id (absent: none named). */
  childThreads?: Map<string, ChildThreadFacts>;
};

export type CmaEvent = { id: string; type: string; processed_at: string | null; [field: string]: unknown };

/** Platform tools that are the runtime's own machinery: no CMA counterpart, so no event. */
const INTERNAL_TOOLS = new Set(['load_skill', 'delegate_agent', 'message_agent']);

export const cmaEventId = (productEventId: string, k?: number) => (k === undefined ? `sevt_${productEventId}` : `sevt_${productEventId}_${k}`);
/** The product event id inside a CMA event id (`null` when it is not one of ours). */
export function productEventIdOf(cmaId: string): string | null {
  const id = cmaId.startsWith('sevt_') ? cmaId.slice('sevt_'.length) : '';
  return isUuid(id) ? id.toLowerCase() : null;
}

const ERROR_TYPES: Record<string, string> = {
  provider_rate_limited: 'model_rate_limited_error',
  provider_server_error: 'model_request_failed_error',
  provider_unreachable: 'model_request_failed_error',
  provider_timeout: 'model_request_failed_error',
  provider_invalid_response: 'model_request_failed_error',
  provider_rejected_request: 'model_request_failed_error',
  provider_quota_exhausted: 'billing_error',
  // A spent session or project budget (docs/decisions/budgets.md): money, as the vendor's quota is.
  budget_exceeded: 'billing_error',
  model_turn_limit_exceeded: 'tool_use_limit_reached_error',
  // The conversation outgrew the model's window and compacting could not help (docs/decisions/context-compaction.md).
  context_limit_reached: 'compaction_limit_reached_error',
};

function sessionError(errorCode: unknown, message: unknown, retry: 'retrying' | 'exhausted') {
  return {
    type: ERROR_TYPES[String(errorCode)] ?? 'unknown_error',
    message: typeof message === 'string' ? message : 'The run failed',
    retry_status: { type: retry },
  };
}

const text = (value: string) => [{ type: 'text', text: value }];

/** The CMA events one product event yields, in order. */
export function cmaEventsOf(event: EventSource, facts: EventFacts): CmaEvent[] {
  const at = event.occurredAt.toISOString();
  const payload = event.publicPayload;
  const one = (fields: Record<string, unknown> & { type: string }): CmaEvent[] => [{ id: cmaEventId(event.id), processed_at: at, ...fields }];
  const call = typeof payload.toolCallId === 'string' ? facts.toolCalls.get(payload.toolCallId) : undefined;
  const useId = call ? cmaEventId(call.createdEventId) : null;

  switch (event.kind) {
    case 'message.created': {
      const content = event.message?.content as { text?: unknown } | undefined;
      if (typeof content?.text !== 'string') return [];
      if (payload.role === 'user') {
        const queued = facts.queuedMessageEventOfRun.get(String(payload.runId));
        return [
          {
            id: queued ? cmaEventId(queued) : cmaEventId(event.id),
            type: 'user.message',
            content: userMessageContent(content.text, facts.attachmentsOfRun.get(String(payload.runId)) ?? []),
            processed_at: at,
          },
        ];
      }
      return payload.role === 'assistant' ? one({ type: 'agent.message', content: text(content.text) }) : [];
    }
    case 'run.running':
      return one({ type: 'session.status_running' });
    case 'run.waiting_for_tool':
    case 'run.waiting_for_approval': {
      const waitingOn = (payload.waitingOn as { toolCallIds?: string[] } | undefined)?.toolCallIds ?? [];
      const eventIds = waitingOn.flatMap((id) => {
        const blocking = facts.toolCalls.get(id);
        return blocking ? [cmaEventId(blocking.createdEventId)] : [];
      });
      return one({ type: 'session.status_idle', stop_reason: { type: 'requires_action', event_ids: eventIds }, stop_details: null });
    }
    case 'run.retry_scheduled':
      return one({ type: 'session.status_rescheduled' });
    case 'model.retry_scheduled':
      return one({ type: 'session.error', error: sessionError(payload.errorCode, payload.errorExplanation, 'retrying') });
    case 'run.completed':
    case 'run.cancelled':
      return one({ type: 'session.status_idle', stop_reason: { type: 'end_turn' }, stop_details: null });
    case 'run.failed':
    case 'run.timed_out': {
      const failure = (payload.failure as { errorCode?: string; errorExplanation?: string } | undefined) ?? {};
      return [
        { id: cmaEventId(event.id, 0), type: 'session.error', error: sessionError(failure.errorCode, failure.errorExplanation, 'exhausted'), processed_at: at },
        { id: cmaEventId(event.id, 1), type: 'session.status_idle', stop_reason: { type: 'retries_exhausted' }, stop_details: null, processed_at: at },
      ];
    }
    case 'context.compacted':
      return one({ type: 'agent.thread_context_compacted' });
    case 'run.cancellation_requested':
      return one({ type: 'user.interrupt' });
    case 'session.archived':
      return one({ type: 'session.status_terminated' });
    case 'session.deleted':
      return one({ type: 'session.deleted' });
    case 'tool_call.created': {
      if (!call || (call.owner === 'platform' && INTERNAL_TOOLS.has(call.toolName))) return [];
      const input = typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments) ? call.arguments : {};
      const permission = call.approvalRequired ? 'ask' : 'allow';
      if (call.owner === 'caller') return one({ type: 'agent.custom_tool_use', name: call.toolName, input, evaluated_permission: permission });
      const mcp = /^mcp__([^_]+(?:_[^_]+)*)__(.+)$/.exec(call.toolName);
      if (mcp) return one({ type: 'agent.mcp_tool_use', mcp_server_name: mcp[1], name: mcp[2], input, evaluated_permission: permission });
      return one({ type: 'agent.tool_use', name: call.toolName, input, evaluated_permission: permission });
    }
    case 'tool_call.succeeded':
    case 'tool_call.failed':
    case 'tool_call.expired':
    case 'tool_call.cancelled':
    case 'tool_call.denied': {
      if (!call || !useId || (call.owner === 'platform' && INTERNAL_TOOLS.has(call.toolName))) return [];
      const isError = event.kind !== 'tool_call.succeeded';
      if (call.owner === 'caller') {
        // Every end of a caller call is echoed as its result, so a runner never runs it again.
        const content = call.resultBlocks ?? text(call.failureMessage ?? `The tool call ended: ${event.kind.slice('tool_call.'.length)}`);
        return one({ type: 'user.custom_tool_result', custom_tool_use_id: useId, content, is_error: isError });
      }
      if (/^mcp__/.test(call.toolName)) return one({ type: 'agent.mcp_tool_result', mcp_tool_use_id: useId, is_error: isError });
      return one({ type: 'agent.tool_result', tool_use_id: useId, is_error: isError });
    }
    case 'delegation.run_queued':
    case 'delegation.run_settled':
      return threadEventsOf(event, facts, call);
    case 'approval.decided':
      if (!useId) return [];
      return one({ type: 'user.tool_confirmation', tool_use_id: useId, result: payload.status === 'approved' ? 'allow' : 'deny' });
    case 'approval.expired':
      // A held call is released: an expired approval is a deny.
      if (!useId) return [];
      return one({ type: 'user.tool_confirmation', tool_use_id: useId, result: 'deny', deny_message: 'The approval expired' });
    default:
      return [];
  }
}

/**
 * A delegation seen from the coordinator's primary thread (docs/decisions/anthropic-compat-multiagent.md):
 * queued by a call, the child's thread is created (`delegate_agent`), sent the call's message and
 * running; settled, it answered (a completed child's final text) and is idle. A message sent to
 * a child through the native API has no call and shows on the child's own thread only.
 */
function threadEventsOf(event: EventSource, facts: EventFacts, call: ToolCallFacts | undefined): CmaEvent[] {
  const payload = event.publicPayload;
  const child = facts.childThreads?.get(String(payload.childSessionId));
  if (!call || !child) return [];
  const at = event.occurredAt.toISOString();
  const thread = { session_thread_id: child.threadId, agent_name: child.agentName };
  const events: Array<Record<string, unknown> & { type: string }> = [];
  if (event.kind === 'delegation.run_queued') {
    const message = (call.arguments as { message?: unknown } | null)?.message;
    if (call.toolName === DELEGATE_AGENT_TOOL) events.push({ type: 'session.thread_created', ...thread, workflow_run_id: null });
    if (typeof message === 'string')
      events.push({ type: 'agent.thread_message_sent', to_session_thread_id: child.threadId, to_agent_name: child.agentName, content: text(message) });
    events.push({ type: 'session.thread_status_running', ...thread });
  } else {
    const answer = (call.resultValue as { answer?: unknown } | null | undefined)?.answer;
    const completed = payload.state === 'completed';
    if (completed && typeof answer === 'string')
      events.push({ type: 'agent.thread_message_received', from_session_thread_id: child.threadId, from_agent_name: child.agentName, content: text(answer) });
    events.push({
      type: 'session.thread_status_idle',
      ...thread,
      stop_reason: { type: completed || payload.state === 'cancelled' ? 'end_turn' : 'retries_exhausted' },
      stop_details: null,
    });
  }
  return events.map((fields, k) => ({ id: cmaEventId(event.id, k), processed_at: at, ...fields }));
}

/** The tool calls an event names (what `facts` must hold for it). */
export function toolCallIdsOf(event: EventSource): string[] {
  const payload = event.publicPayload;
  const ids = typeof payload.toolCallId === 'string' ? [payload.toolCallId] : [];
  const waitingOn = (payload.waitingOn as { toolCallIds?: unknown } | undefined)?.toolCallIds;
  if (Array.isArray(waitingOn)) for (const id of waitingOn) if (typeof id === 'string') ids.push(id);
  return ids;
}
