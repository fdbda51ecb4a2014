/**
 * Reading the event feed's wire format (spec 2 "Event stream"): frames end with a blank line;
 * each has `id:`, `event:` and `data:` lines, and a frame of only a comment (`:`) is a keep-alive.
 * The server writes one `data:` line per frame (JSON has no raw line breaks).
 */
export type SseFrame = { id: string | null; event: string | null; data: string | null };

/** Splits the complete frames off `buffer`; `rest` is the incomplete tail to prepend to the next chunk. */
export function takeSseFrames(buffer: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  let rest = buffer;
  let cut: number;
  while ((cut = rest.indexOf('\n\n')) >= 0) {
    const text = rest.slice(0, cut);
    rest = rest.slice(cut + 2);
    const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, 'm').exec(text)?.[1] ?? null;
    const frame = { id: field('id'), event: field('event'), data: field('data') };
    if (frame.id !== null || frame.event !== null || frame.data !== null) frames.push(frame);
  }
  return { frames, rest };
}
