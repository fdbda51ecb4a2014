import { describe, expect, it } from 'vitest';
import { base64ByteLength, contentTypeProblem, decodeCanonicalBase64, encodeBase64, fileDataProblem } from './file.ts';
import { SKILL_FILE_MAX_BYTES } from './limits.ts';

const b64 = (text: string) => encodeBase64(new TextEncoder().encode(text));

describe('canonical base64', () => {
  it.each([
    ['', true],
    ['aGk=', true],
    ['aGk', false],
    ['aGl=', false], // non-zero padding bits
    ['aG k=', false],
    ['aGk=\n', false],
    ['aGk-', false], // base64url alphabet
  ])('%j canonical: %s', (text, ok) => {
    expect(decodeCanonicalBase64(text) !== null).toBe(ok);
  });

  it('round-trips bytes and sizes', () => {
    const bytes = Uint8Array.from({ length: 70_000 }, (_, index) => index % 251);
    const text = encodeBase64(bytes);
    expect(decodeCanonicalBase64(text)).toEqual(bytes);
    expect(base64ByteLength(text)).toBe(bytes.length);
    expect(base64ByteLength('aGk=')).toBe(2);
  });
});

describe('fileDataProblem', () => {
  it.each([
    [b64('# Title\n\nBody ✓\n'), null],
    [b64('\ufeffwith BOM'), null],
    [encodeBase64(Uint8Array.of(0xff, 0xfe, 0x41)), 'valid UTF-8'],
    [b64('nul\u0000byte'), 'NUL'],
    ['not base64!', 'canonical base64'],
    [encodeBase64(new Uint8Array(SKILL_FILE_MAX_BYTES + 1).fill(0x41)), 'at most'],
  ])('%#', (data, problem) => {
    const result = fileDataProblem(data);
    if (problem === null) expect(result.problem).toBeNull();
    else expect(result.problem).toContain(problem);
  });

  it('accepts only text/markdown', () => {
    expect(contentTypeProblem('text/markdown')).toBeNull();
    expect(contentTypeProblem('text/plain')).toContain('text/markdown');
    expect(contentTypeProblem('text/markdown; charset=utf-8')).not.toBeNull();
  });
});
