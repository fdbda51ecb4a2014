/** One server-sent event frame as a test reads it off the wire (`id` absent on live output). */
export type SseFrame = { id?: string; event?: string; data?: string };

/** Parses the complete frames of `text` (heartbeat comments skipped); returns them and the unparsed rest. */
export function parseSseFrames(text: string): { frames: SseFrame[]; rest: string } {
  const blocks = text.split('\n\n');
  const rest = blocks.pop()!;
  const frames = blocks
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const frame: SseFrame = {};
      for (const line of block.split('\n')) {
        const [field, ...value] = line.split(': ');
        frame[field as keyof SseFrame] = value.join(': ');
      }
      return frame;
    });
  return { frames, rest };
}

export type DeltaData = { runId: string; turn: number; attempt: number; offset: number; text: string };

/** The `message.delta` frames' data, in order. */
export const deltasOf = (frames: SseFrame[]): DeltaData[] => frames.filter((frame) => frame.event === 'message.delta').map((frame) => JSON.parse(frame.data!) as DeltaData);

/** The durable `message.created` frames of assistant messages. */
export const assistantMessagesCreated = (frames: SseFrame[]) => frames.filter((frame) => frame.event === 'message.created' && JSON.parse(frame.data!).publicPayload.role === 'assistant');

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
