import { SKILL_FILE_CONTENT_TYPE, SKILL_FILE_MAX_BYTES } from './limits.ts';

export type SkillPackageFile = { path: string; contentType: string; dataBase64: string };

// Linear-time shape check; the padding and unused-bit checks below do the rest.
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A problem with a file's `contentType`, or null. */
export function contentTypeProblem(contentType: string): string | null {
  return contentType === SKILL_FILE_CONTENT_TYPE ? null : `must be "${SKILL_FILE_CONTENT_TYPE}" (only UTF-8 Markdown files are supported)`;
}

/**
 * Decodes canonical base64 (standard alphabet, padded, no whitespace, zero unused bits): the
 * one spelling per byte string, so the stored text, the content hash and an export agree on the
 * bytes. Returns null for anything else.
 */
export function decodeCanonicalBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !BASE64_CHARS.test(text)) return null;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (padding > 0) {
    // The last data character carries 4 (one byte) or 2 (two bytes) unused bits: they must be 0.
    const last = ALPHABET.indexOf(text[text.length - padding - 1]!);
    if ((last & (padding === 2 ? 0b1111 : 0b11)) !== 0) return null;
  }
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunked: String.fromCharCode over a 1 MiB spread would exceed the argument limit.
  for (let start = 0; start < bytes.length; start += 0x8000) binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

/**
 * Problems with a file's bytes: canonical base64 of valid UTF-8 without U+0000, within the
 * per-file size. Returns the decoded size too, for package totals.
 */
export function fileDataProblem(dataBase64: string): { problem: string; size: number } | { problem: null; size: number } {
  const bytes = decodeCanonicalBase64(dataBase64);
  if (!bytes) return { problem: 'must be canonical base64 (standard alphabet, padded, no whitespace)', size: 0 };
  if (bytes.length > SKILL_FILE_MAX_BYTES) return { problem: `must decode to at most ${SKILL_FILE_MAX_BYTES} bytes`, size: bytes.length };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { problem: 'must decode to valid UTF-8 text', size: bytes.length };
  }
  if (text.includes('\u0000')) return { problem: 'must not contain NUL characters', size: bytes.length };
  return { problem: null, size: bytes.length };
}

/** Decoded size of canonical base64 without decoding it. */
export function base64ByteLength(dataBase64: string): number {
  const padding = dataBase64.endsWith('==') ? 2 : dataBase64.endsWith('=') ? 1 : 0;
  return (dataBase64.length / 4) * 3 - padding;
}
