import { describe, expect, it } from 'vitest';
import { memoryTree, sizeText, type MemoryFolder } from './memoryTree.ts';

const leaf = (path: string, contentSizeBytes = 1) => ({ id: path, path, contentSizeBytes });
/** The tree as indented lines: folders end in "/", each with its count. */
const lines = (folder: MemoryFolder, depth = 0): string[] => [
  ...folder.folders.flatMap((inner) => [`${'  '.repeat(depth)}${inner.name}/ (${inner.count}) ${inner.path}`, ...lines(inner, depth + 1)]),
  ...folder.memories.map((memory) => `${'  '.repeat(depth)}${memory.name}`),
];

describe('the memory tree', () => {
  it('makes folders from the paths, folders before memories, each sorted by name, with their counts', () => {
    const tree = memoryTree([leaf('/notes.md'), leaf('/customers/zeta.md'), leaf('/customers/acme/contacts.md'), leaf('/customers/acme.md'), leaf('/a.md')]);
    expect(tree.count).toBe(5);
    expect(lines(tree)).toEqual([
      'customers/ (3) /customers/',
      '  acme/ (1) /customers/acme/',
      '    contacts.md',
      '  acme.md',
      '  zeta.md',
      'a.md',
      'notes.md',
    ]);
  });

  it('is an empty root without memories', () => {
    expect(memoryTree([])).toEqual({ name: '', path: '/', folders: [], memories: [], count: 0 });
  });
});

describe('sizes', () => {
  it('shows bytes, then kB and MB', () => {
    expect([0, 1, 999, 1000, 1550, 100_000, 2_500_000].map(sizeText)).toEqual(['0 bytes', '1 byte', '999 bytes', '1 kB', '1.6 kB', '100 kB', '2.5 MB']);
  });
});
