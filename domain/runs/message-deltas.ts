/**
 * Live model output (issue 30): ephemeral frames of a session stream, never stored and never sent
 * to webhooks. Offsets count UTF-16 code units (JavaScript string length) of one turn's text.
 */

/** `message.delta`: `text` continues the turn's text at `offset`; offset 0 (re)starts it. */
export type MessageDelta = { runId: string; turn: number; attempt: number; offset: number; text: string };

/** `message.delta_reset`: the attempt that sent text was abandoned; drop the turn's partial text. */
export type MessageDeltaReset = { runId: string; turn: number; attempt: number };

export const MESSAGE_DELTA_EVENT = 'message.delta';
export const MESSAGE_DELTA_RESET_EVENT = 'message.delta_reset';

/** Where a streaming turn belongs. */
export type StreamingTurnKey = { projectId: string; sessionId: string; runId: string; turn: number; attempt: number };

/**
 * Which publication of a turn's attempt a signal belongs to: one per model call, so the late
 * signals of a dead worker's call are told apart from its retry's (the same turn and attempt).
 * Absent in signals of workers from before it existed.
 */
type Publication = { stream?: string };

/** What a worker tells the API processes about a streaming turn. */
export type DeltaSignal =
  | (StreamingTurnKey & Publication & { kind: 'delta'; offset: number; text: string })
  | (StreamingTurnKey & Publication & { kind: 'reset' })
  /** The turn's message committed (or the attempt ended without text to keep): forget it. */
  | (StreamingTurnKey & Publication & { kind: 'end' });

/**
 * The run's 1-based model turn of a main-thread turn id (`turn-N`); null for a Harness Operation's
 * sub-turns (`op:<callId>:turn-N`), whose text is the operation's, not a reply to the user.
 */
export function mainTurnNumber(turnId: string): number | null {
  const match = /^turn-([1-9][0-9]{0,8})$/.exec(turnId);
  return match ? Number(match[1]) : null;
}

/**
 * Splits a delta's text so each piece, as a signal, fits `maxBytes` of UTF-8 JSON (a PostgreSQL
 * NOTIFY payload holds under 8,000 bytes). Never splits a surrogate pair.
 */
export function splitDelta(signal: Extract<DeltaSignal, { kind: 'delta' }>, maxBytes: number): Array<Extract<DeltaSignal, { kind: 'delta' }>> {
  if (utf8Length(JSON.stringify(signal)) <= maxBytes || signal.text.length <= 1) return [signal];
  let cut = Math.floor(signal.text.length / 2);
  const code = signal.text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut += 1;
  const head = { ...signal, text: signal.text.slice(0, cut) };
  const tail = { ...signal, offset: signal.offset + cut, text: signal.text.slice(cut) };
  return [...splitDelta(head, maxBytes), ...splitDelta(tail, maxBytes)];
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}
