import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { decodeEventCursor, encodeEventCursor } from './event-cursor.ts';
import { ValidationError } from './errors.ts';

const projectId = '0b6f4f8e-3c1a-4d2b-9f4e-2a7c1d9e5b30';
const otherProjectId = '7d1e2c3b-4a5f-4e6d-8c7b-9a0f1e2d3c4b';

/** Builds a cursor from an arbitrary payload, the way a tampering client would. */
const forge = (payload: string) => Buffer.from(payload, 'latin1').toString('base64url');

function rejection(cursor: string, project = projectId): ValidationError {
  try {
    decodeEventCursor(cursor, project);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error(`cursor ${cursor} was accepted`);
}

describe('event cursor', () => {
  it('round-trips positions, including zero and the bigint maximum', () => {
    for (const position of [0n, 1n, 2n, 3n, 99n, 1000n, 123456789012345n, 2n ** 63n - 1n]) {
      expect(decodeEventCursor(encodeEventCursor(projectId, position), projectId)).toBe(position);
    }
  });

  it('is url-safe base64 of the versioned payload', () => {
    const cursor = encodeEventCursor(projectId, 42n);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).toBe(forge(`1.${projectId}.42`).replace(/=+$/, ''));
  });

  it('accepts what Buffer encodes for every payload length (padding boundaries)', () => {
    for (const position of [1n, 12n, 123n, 1234n]) {
      expect(decodeEventCursor(forge(`1.${projectId}.${position}`), projectId)).toBe(position);
    }
  });

  it('treats project ids case-insensitively', () => {
    const cursor = encodeEventCursor(projectId.toUpperCase(), 7n);
    expect(decodeEventCursor(cursor, projectId)).toBe(7n);
  });

  it('refuses a cursor of another project', () => {
    const error = rejection(encodeEventCursor(otherProjectId, 5n));
    expect(error.message).toBe('Invalid event cursor: it belongs to another project');
    expect(error.details).toEqual({ path: 'cursor' });
  });

  it('refuses negative, fractional, padded and out-of-range positions', () => {
    expect(rejection(forge(`1.${projectId}.-1`)).message).toMatch(/non-negative integer/);
    expect(rejection(forge(`1.${projectId}.1.5`)).message).toMatch(/not a cursor/);
    expect(rejection(forge(`1.${projectId}.1e3`)).message).toMatch(/non-negative integer/);
    expect(rejection(forge(`1.${projectId}.007`)).message).toMatch(/non-negative integer/);
    expect(rejection(forge(`1.${projectId}.`)).message).toMatch(/non-negative integer/);
    expect(rejection(forge(`1.${projectId}.${2n ** 63n}`)).message).toMatch(/out of range/);
  });

  it('refuses malformed input with a clear message', () => {
    expect(rejection('').message).toMatch(/empty or too long/);
    expect(rejection('x'.repeat(500)).message).toMatch(/empty or too long/);
    expect(rejection('not a cursor!').message).toMatch(/not a cursor issued by this service/);
    expect(rejection('abcde').message).toMatch(/not a cursor issued by this service/);
    expect(rejection(forge('hello')).message).toMatch(/not a cursor issued by this service/);
    expect(rejection(forge(`1.not-a-uuid.5`)).message).toMatch(/not a cursor issued by this service/);
    expect(rejection(forge(`2.${projectId}.5`)).message).toMatch(/unsupported cursor version "2"/);
    expect(rejection(forge(`1.${projectId}.\u00e95`)).message).toMatch(/not a cursor issued by this service/);
    // Standard base64 with padding is not the canonical form.
    expect(rejection(Buffer.from(`1.${projectId}.1`).toString('base64')).message).toMatch(/not a cursor/);
  });

  it('refuses non-canonical encodings so each position has one cursor', () => {
    const cursor = encodeEventCursor(projectId, 1n); // payload length 40 → 2 trailing chars
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // Setting a low bit that the decoder discards must not yield a second valid spelling.
    const tweaked = cursor.slice(0, -1) + alphabet[alphabet.indexOf(cursor.at(-1)!) | 1];
    expect(tweaked).not.toBe(cursor);
    expect(() => decodeEventCursor(tweaked, projectId)).toThrow(ValidationError);
  });

  it('names the path the caller passes', () => {
    try {
      decodeEventCursor('%%%', projectId, { path: 'header.last-event-id' });
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationError).details).toEqual({ path: 'header.last-event-id' });
    }
  });

  it('refuses to encode a negative position', () => {
    expect(() => encodeEventCursor(projectId, -1n)).toThrow(RangeError);
  });
});
