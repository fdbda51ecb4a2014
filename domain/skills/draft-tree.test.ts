import { describe, expect, it } from 'vitest';
import { entriesAt, planPlacement, type TreeEntry } from './draft-tree.ts';

const tree: TreeEntry[] = [
  { path: 'refs', kind: 'directory' },
  { path: 'refs/a.md', kind: 'file' },
  { path: 'refs/deep', kind: 'directory' },
  { path: 'refs/deep/b.md', kind: 'file' },
  { path: 'top.md', kind: 'file' },
];

describe('planPlacement', () => {
  it.each([
    ['new/sub/c.md', 'file', { ok: true, existing: null, createDirectories: ['new', 'new/sub'] }],
    ['refs/c.md', 'file', { ok: true, existing: null, createDirectories: [] }],
    ['refs/a.md', 'file', { ok: true, existing: tree[1], createDirectories: [] }],
    ['refs', 'directory', { ok: true, existing: tree[0], createDirectories: [] }],
    ['refs/x/y', 'directory', { ok: true, existing: null, createDirectories: ['refs/x'] }],
  ] as const)('%s (%s)', (path, kind, expected) => {
    expect(planPlacement(tree, path, kind)).toEqual(expected);
  });

  it.each([
    ['refs', 'file', 'is a folder'],
    ['refs/deep', 'file', 'is a folder'],
    ['top.md', 'directory', 'is a file'],
    ['top.md/x.md', 'file', 'is a file, not a folder'],
    ['Refs/c.md', 'file', 'exists as "refs"'],
    ['REFS/A.md', 'file', 'exists as "refs"'],
    ['Top.md', 'file', 'collides with "top.md"'],
  ] as const)('refuses %s (%s)', (path, kind, message) => {
    const placement = planPlacement(tree, path, kind);
    expect(placement.ok).toBe(false);
    if (!placement.ok) expect(placement.message).toContain(message);
  });
});

describe('entriesAt', () => {
  it('finds a folder with its contents, case-insensitively', () => {
    expect(entriesAt(tree, 'REFS').within.map((entry) => entry.path)).toEqual(['refs/a.md', 'refs/deep', 'refs/deep/b.md']);
    expect(entriesAt(tree, 'top.md')).toEqual({ entry: tree[4], within: [] });
    expect(entriesAt(tree, 'missing.md')).toEqual({ entry: null, within: [] });
  });
});
