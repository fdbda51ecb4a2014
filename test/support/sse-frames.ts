import type { SseFrame } from '../../domain/sse-frames.ts';

export { takeSseFrames, type SseFrame } from '../../domain/sse-frames.ts';

export type DeltaData = { runId: string; turn: number; attempt: number; offset: number; text: string };

/** The `message.delta` frames' data, in order. */
export const deltasOf = (frames: SseFrame[]): DeltaData[] =>
  frames.filter((frame) => frame.event === 'message.delta').map((frame) => JSON.parse(frame.data!) as DeltaData);

/** The durable `message.created` frames of assistant messages. */
export const assistantMessagesCreated = (frames: SseFrame[]) =>
  frames.filter((frame) => frame.event === 'message.created' && JSON.parse(frame.data!).publicPayload.role === 'assistant');

/** The text a client assembles: each delta lands at its offset; a reset drops the text. */
export function assembledText(frames: SseFrame[]): string {
  let text = '';
  for (const frame of frames) {
    if (frame.event === 'message.delta_reset') text = '';
    if (frame.event !== 'message.delta') continue;
    const delta = JSON.parse(frame.data!) as DeltaData;
    text = text.slice(0, delta.offset) + delta.text;
  }
  return text;
}
