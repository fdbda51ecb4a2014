import { describe, expect, it } from 'vitest';
import { isWithin, packagePathProblem, parentDirectories, pathIdentity } from './path.ts';

describe('packagePathProblem', () => {
  it.each([
    ['guide.md', 'file'],
    ['references/api-v2/guide_1.md', 'file'],
    ['a/b/c/d/e/f/g/h.md', 'file'],
    ['references', 'directory'],
    ['docs/SKILL.md', 'file'],
    ['Skill.mdx.md', 'file'],
  ] as const)('accepts %s as a %s', (path, kind) => {
    expect(packagePathProblem(path, kind)).toBeNull();
  });

  it.each([
    ['', 'file', 'must not be empty'],
    ['../x.md', 'file', '"." or ".."'],
    ['a/./b.md', 'file', '"." or ".."'],
    ['/abs.md', 'file', 'no leading "/"'],
    ['a//b.md', 'file', 'empty segments'],
    ['a/', 'directory', 'empty segments'],
    ['a\\b.md', 'file', 'not "\\"'],
    ['C:/x.md', 'file', 'drive letter'],
    ['c:x.md', 'file', 'drive letter'],
    ['a\u0000.md', 'file', 'control characters'],
    ['a\nb.md', 'file', 'control characters'],
    ['a b.md', 'file', 'only letters'],
    ['ü.md', 'file', 'only letters'],
    ['.hidden.md', 'file', 'start or end with "."'],
    ['dir./x.md', 'file', 'start or end with "."'],
    ['con.md', 'file', 'reserved device name'],
    ['LPT1/x.md', 'file', 'reserved device name'],
    ['notes.txt', 'file', 'ending in ".md"'],
    ['README.MD', 'file', 'ending in ".md"'],
    ['SKILL.md', 'file', 'made from the version fields'],
    ['skill.md', 'file', 'made from the version fields'],
    ['a/b/c/d/e/f/g/h/i.md', 'file', 'at most 8 segments'],
    [`${'a'.repeat(101)}.md`, 'file', 'at most 100 characters'],
    [`${'a'.repeat(90)}/${'b'.repeat(90)}/${'c'.repeat(90)}.md`, 'file', 'at most 255 characters'],
  ] as const)('refuses %j as a %s', (path, kind, message) => {
    expect(packagePathProblem(path, kind)).toContain(message);
  });
});

describe('path helpers', () => {
  it('lists ancestors outermost first', () => {
    expect(parentDirectories('a/b/c.md')).toEqual(['a', 'a/b']);
    expect(parentDirectories('c.md')).toEqual([]);
  });

  it('compares case-insensitively', () => {
    expect(pathIdentity('Refs/Guide.md')).toBe(pathIdentity('refs/guide.md'));
    expect(isWithin('Refs/a.md', 'refs')).toBe(true);
    expect(isWithin('refs', 'refs')).toBe(true);
    expect(isWithin('refsx/a.md', 'refs')).toBe(false);
  });
});
