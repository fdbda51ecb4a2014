import type { PublicMessage } from '../../../client/src/api-types.ts';

/** The text of one model turn as it is being written (`LiveText.entries()`). */
export type LiveReply = { runId: string; turn: number; text: string };

/**
 * Which live replies to show below the transcript, and which runs' live text can go. Every
 * model turn of a run that succeeds appends exactly one assistant message to the session's
 * thread, so turn N of a run is committed once the transcript holds N assistant messages of
 * that run: from that render on the transcript shows it and the live text does not (never
 * both, never neither). `writing` keeps the turns not yet committed that have text; `done`
 * lists the runs whose every live turn is committed (forget them).
 */
export function liveReplies(
  entries: readonly LiveReply[],
  transcript: readonly Pick<PublicMessage, 'runId' | 'role'>[],
): { writing: LiveReply[]; done: string[] } {
  const committed = new Map<string, number>();
  for (const message of transcript) if (message.role === 'assistant') committed.set(message.runId, (committed.get(message.runId) ?? 0) + 1);
  const open = entries.filter((entry) => entry.turn > (committed.get(entry.runId) ?? 0));
  const stillOpen = new Set(open.map((entry) => entry.runId));
  return {
    writing: open.filter((entry) => entry.text !== ''),
    done: [...new Set(entries.map((entry) => entry.runId))].filter((runId) => !stillOpen.has(runId)),
  };
}
