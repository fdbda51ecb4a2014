import { ValidationError } from './errors.ts';
import { isLowercaseUuid } from './uuid.ts';

/**
 * The opaque event cursor: the SSE frame `id` and the webhook `cursor` (spec 2 "Event feed",
 * spec 3 "Webhook delivery" rule 3). It names a durable project position, so a reader that
 * resumes after it never misses a later-committed event (ARCHITECTURE durability rule 5).
 *
 * Wire form: base64url (no padding) of `1.<projectId>.<position>`. The leading version lets a
 * later format coexist with cursors clients already hold; the project id lets us refuse a
 * cursor replayed against another project instead of silently skipping its events.
 *
 * Pure and dependency-free (no `node:` imports, no atob/btoa), so workflows may import it.
 */

const VERSION = '1';
const POSITION = /^(0|[1-9][0-9]*)$/;
/** `project_position` is a Postgres bigint. */
const MAX_POSITION = 2n ** 63n - 1n;
/** Generous bound so a hostile header never makes us decode megabytes. */
const MAX_CURSOR_LENGTH = 200;

/** Encodes the cursor that means "everything up to and including `position`". */
export function encodeEventCursor(projectId: string, position: bigint): string {
  if (position < 0n) throw new RangeError('An event position is never negative');
  return toBase64Url(`${VERSION}.${projectId.toLowerCase()}.${position.toString()}`);
}

/**
 * Decodes a cursor a client sent back and returns the position it names. Throws a
 * `ValidationError` (a 400 at the API) when the cursor is malformed, of an unknown version, of
 * another project, or names a position that is not a non-negative integer.
 */
export function decodeEventCursor(cursor: string, projectId: string, options: { path?: string } = {}): bigint {
  const path = options.path ?? 'cursor';
  const invalid = (reason: string) => new ValidationError(`Invalid event cursor: ${reason}`, { path });

  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) throw invalid('it is empty or too long');
  const decoded = fromBase64Url(cursor);
  if (decoded === null) throw invalid('it is not a cursor issued by this service');
  const parts = decoded.split('.');
  if (parts.length !== 3) throw invalid('it is not a cursor issued by this service');
  const [version, cursorProjectId, position] = parts as [string, string, string];
  if (version !== VERSION) throw invalid(`unsupported cursor version "${version.slice(0, 10)}"`);
  if (!isLowercaseUuid(cursorProjectId)) throw invalid('it is not a cursor issued by this service');
  if (cursorProjectId !== projectId.toLowerCase()) throw invalid('it belongs to another project');
  if (!POSITION.test(position)) throw invalid('its position is not a non-negative integer');
  const value = BigInt(position);
  if (value > MAX_POSITION) throw invalid('its position is out of range');
  return value;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const INDEX = new Map([...ALPHABET].map((char, index) => [char, index]));

/** base64url without padding of an ASCII string (the cursor payload is always ASCII). */
function toBase64Url(ascii: string): string {
  let out = '';
  for (let i = 0; i < ascii.length; i += 3) {
    const a = ascii.charCodeAt(i);
    const b = i + 1 < ascii.length ? ascii.charCodeAt(i + 1) : 0;
    const c = i + 2 < ascii.length ? ascii.charCodeAt(i + 2) : 0;
    const bits = (a << 16) | (b << 8) | c;
    out += ALPHABET[(bits >> 18) & 63]! + ALPHABET[(bits >> 12) & 63]!;
    if (i + 1 < ascii.length) out += ALPHABET[(bits >> 6) & 63]!;
    if (i + 2 < ascii.length) out += ALPHABET[bits & 63]!;
  }
  return out;
}

/** Inverse of `toBase64Url`; null for anything that is not canonical base64url of ASCII. */
function fromBase64Url(text: string): string | null {
  if (text.length % 4 === 1) return null;
  let out = '';
  for (let i = 0; i < text.length; i += 4) {
    const chunk = text.slice(i, i + 4);
    let bits = 0;
    for (let j = 0; j < 4; j++) {
      const value = j < chunk.length ? INDEX.get(chunk[j]!) : 0;
      if (value === undefined) return null;
      bits = (bits << 6) | value;
    }
    const bytes = [(bits >> 16) & 255, (bits >> 8) & 255, bits & 255].slice(0, chunk.length - 1);
    for (const byte of bytes) {
      if (byte > 127) return null;
      out += String.fromCharCode(byte);
    }
  }
  // Reject non-canonical encodings (stray low bits), so one position has exactly one cursor.
  return toBase64Url(out) === text ? out : null;
}
