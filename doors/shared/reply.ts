import type { ServiceContext } from '../../services/kernel/service-context.ts';
import { listRunMessages } from '../../services/runtime/runs/index.ts';
import { readPendingWork, type PublicPendingWork } from '../../services/runtime/tool-calls/index.ts';

/** Messages a run appends are few; a door reads them in one page. */
const RUN_MESSAGES_PAGE = 200;

/** A run's messages as a door shows them: the caller's input and the agent's text replies, in order. */
export type TurnMessage = { id: string; role: 'user' | 'agent'; text: string };

export async function turnMessages(ctx: ServiceContext, runId: string): Promise<TurnMessage[]> {
  const page = await listRunMessages({ ctx, input: { runId, limit: RUN_MESSAGES_PAGE } });
  return page.data.flatMap((message): TurnMessage[] => {
    if (message.role === 'user' && message.text) return [{ id: message.id, role: 'user', text: message.text }];
    if (message.role === 'assistant' && message.text) return [{ id: message.id, role: 'agent', text: message.text }];
    return [];
  });
}

/** The run's answer: its last text reply (null before it has one). */
export const answerOf = (messages: TurnMessage[]): TurnMessage | null => messages.filter((message) => message.role === 'agent').at(-1) ?? null;

/** What a waiting run waits for: its caller-owned tool calls without a result and its undecided approvals. */
export async function pendingWorkOf(ctx: ServiceContext, run: { projectId: string; id: string }): Promise<PublicPendingWork> {
  return readPendingWork(ctx, { projectId: run.projectId, runIds: [run.id] });
}
