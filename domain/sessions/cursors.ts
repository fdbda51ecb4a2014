/**
 * Cursors of the session and run reads that do not page by `(createdAt, id)`: transcript
 * messages page by thread `sequence` (opaque, like every other list cursor), the run timeline
 * by the numeric `entrySequence` itself (spec 2 common rule 5).
 */

export function encodeSequenceCursor(sequence: number): string {
  return toBase64Url(`s1|${sequence}`);
}

/** Returns null for a cursor that is not one of ours; callers turn that into a 400. */
export function decodeSequenceCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return null;
  }
  const match = /^s1\|(\d{1,10})$/.exec(text);
  if (!match) return null;
  const sequence = Number(match[1]);
  return Number.isSafeInteger(sequence) ? sequence : null;
}

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
