import { APPROVAL_EVENT_KINDS } from '../../../domain/tool-calls/events.ts';
import { FINAL_TOOL_CALL_STATUSES, type ToolCallStatus } from '../../../domain/tool-calls/states.ts';
import { metrics } from './registry.ts';

type CommittedEvent = { kind: string; publicPayload: Record<string, unknown> };

const FINAL = new Set<string>(FINAL_TOOL_CALL_STATUSES.map((status: ToolCallStatus) => `tool_call.${status}`));

/**
 * Counts the tool calls and approvals that ended, from the product events this process
 * committed: every such change is recorded by exactly one event, appended by exactly one
 * process, so the counts neither miss nor double across processes.
 */
export function countCommittedEvents(events: readonly CommittedEvent[]): void {
  for (const { kind, publicPayload } of events) {
    if (FINAL.has(kind)) {
      metrics.toolCalls.inc({ owner: String(publicPayload.owner ?? 'unknown'), outcome: kind.slice('tool_call.'.length) });
    } else if (kind === APPROVAL_EVENT_KINDS.decided) {
      metrics.approvalsEnded.inc({ outcome: String(publicPayload.status ?? 'unknown') });
    } else if (kind === APPROVAL_EVENT_KINDS.expired) {
      metrics.approvalsEnded.inc({ outcome: 'expired' });
    }
  }
}
