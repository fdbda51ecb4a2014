/**
 * A server-sent events decoder (the WHATWG framing every vendor stream uses): lines end with
 * CRLF, LF or CR; `event:` names the event, `data:` lines join with `\n`, a blank line dispatches;
 * lines starting with `:` are comments (OpenRouter's `: OPENROUTER PROCESSING` keep-alives);
 * `id:` and `retry:` are ignored. Like the vendors' own SDKs it dispatches an event that has a
 * name or data, and at the end of the stream the last event even without its blank line.
 */

export type SseEvent = { type: 'message'; event: string | null; data: string } | { type: 'comment'; text: string };

export class SseDecoder {
  #pending = '';
  /** The previous text ended with CR: an LF at the start of the next one belongs to it. */
  #afterCr = false;
  #event: string | null = null;
  #data: string[] = [];

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    let start = 0;
    if (this.#afterCr && text.startsWith('\n')) start = 1;
    this.#afterCr = false;
    for (let index = start; index < text.length; index++) {
      const char = text.charCodeAt(index);
      if (char !== 10 && char !== 13) continue;
      this.#line(this.#pending + text.slice(start, index), out);
      this.#pending = '';
      if (char === 13) {
        if (index + 1 === text.length) this.#afterCr = true;
        else if (text.charCodeAt(index + 1) === 10) index++;
      }
      start = index + 1;
    }
    this.#pending += text.slice(start);
    return out;
  }

  /** The end of the stream: the last line and event, even without their terminators. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.#pending !== '') this.#line(this.#pending, out);
    this.#pending = '';
    this.#dispatch(out);
    return out;
  }

  #line(line: string, out: SseEvent[]): void {
    if (line === '') return this.#dispatch(out);
    if (line.startsWith(':')) {
      out.push({ type: 'comment', text: line.slice(1).trim() });
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
  }

  #dispatch(out: SseEvent[]): void {
    if (this.#event === null && this.#data.length === 0) return;
    out.push({ type: 'message', event: this.#event, data: this.#data.join('\n') });
    this.#event = null;
    this.#data = [];
  }
}

/** Decodes a whole recorded stream at once (tests, and bodies read in one piece). */
export function decodeSse(text: string): SseEvent[] {
  const decoder = new SseDecoder();
  return [...decoder.push(text), ...decoder.end()];
}
