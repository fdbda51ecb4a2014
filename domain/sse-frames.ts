/**
 * Reading the event feed's wire format (spec 2 "Event stream"): frames end with a blank line;
 * each has `id:`, `event:` and `data:` lines, and a frame of only a comment (`:`) is a keep-alive.
 * The server writes one `data:` line per frame (JSON has no raw line breaks).
 */
export type SseFrame = { id: string | null; event: string | null; data: string | null };

/** Splits the complete frames off `buffer`; `rest` is the incomplete tail to prepend to the next chunk. */
export function takeSseFrames(buffer: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  let start = 0;
  let cut: number;
  while ((cut = buffer.indexOf('\n\n', start)) >= 0) {
    const frame: SseFrame = { id: null, event: null, data: null };
    // A frame's lines: `name: value` (one space after the colon is optional); the first of each name counts.
    for (const line of buffer.slice(start, cut).split('\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon);
      if (name !== 'id' && name !== 'event' && name !== 'data') continue;
      if (frame[name] === null) frame[name] = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    start = cut + 2;
    if (frame.id !== null || frame.event !== null || frame.data !== null) frames.push(frame);
  }
  return { frames, rest: buffer.slice(start) };
}
