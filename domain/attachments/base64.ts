/**
 * Canonical standard base64 (RFC 4648 §4 with §3.5 canonical encoding): alphabet `A-Z a-z 0-9
 * + /`, length a multiple of 4, at most two `=` and only at the end, and the unused bits of the
 * last symbol zero. Every byte string then has exactly one accepted spelling, so the same bytes
 * always make the same request (idempotency hashes) and nothing hides in padding bits.
 *
 * The decoded size is computed from the length; decoding is left to the caller (`atob` or
 * `Buffer`), which is slow on 13 MB strings and not needed to validate.
 */

export type Base64Check = { ok: true; sizeBytes: number } | { ok: false; message: string };

// Symbol value of each ASCII code, -1 outside the alphabet.
const VALUES: readonly number[] = (() => {
  const values = new Array<number>(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let index = 0; index < alphabet.length; index++) values[alphabet.charCodeAt(index)] = index;
  return values;
})();

/** The length of the canonical encoding of `bytes` bytes. */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** Checks that `data` is canonical base64 and returns its decoded size. Never echoes `data`. */
export function checkCanonicalBase64(data: string): Base64Check {
  if (/^data:/i.test(data)) return fail('must be bare base64, not a data: URL');
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  const end = data.length - padding;
  for (let index = 0; index < end; index++) {
    if ((VALUES[data.charCodeAt(index)] ?? -1) < 0) return fail(symbolProblem(data, index));
  }
  if (data.length % 4 !== 0) return fail('must be padded with = to a multiple of 4 characters');
  if (padding > 0 && (VALUES[data.charCodeAt(end - 1)]! & (padding === 2 ? 0b1111 : 0b11)) !== 0) {
    return fail('must be canonical: the unused bits before the = padding must be zero');
  }
  return { ok: true, sizeBytes: (data.length / 4) * 3 - padding };
}

// Only on failure: name the most telling problem, wherever it is, rather than the first symbol.
function symbolProblem(data: string, firstBad: number): string {
  const space = /[\t\n\v\f\r ]/.exec(data);
  if (space) return `must not contain whitespace or line breaks (offset ${space.index})`;
  const urlSafe = /[-_]/.exec(data);
  if (urlSafe) return `must use the standard alphabet with + and /, not base64url - and _ (offset ${urlSafe.index})`;
  if (data[firstBad] === '=') return `may hold = only as padding at the end (offset ${firstBad})`;
  return `holds a character outside the base64 alphabet (offset ${firstBad})`;
}

function fail(message: string): Base64Check {
  return { ok: false, message };
}
