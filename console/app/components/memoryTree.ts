/** A memory as the tree needs it: its id, its path (`/customers/acme.md`) and its size. */
export type MemoryLeaf = { id: string; path: string; contentSizeBytes: number };

/** A folder of the tree: the memories directly in it and the folders below it, each sorted by name. */
export type MemoryFolder = {
  /** The folder's own name (`customers`); empty for the store's root. */
  name: string;
  /** The prefix it stands for, ending in "/" (`/customers/`); `/` for the root. */
  path: string;
  folders: MemoryFolder[];
  memories: Array<MemoryLeaf & { name: string }>;
  /** How many memories are in it and below it. */
  count: number;
};

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The folders of a store, made from its memories' paths: a memory at `/a/b/c.md` sits in the
 * folder `b` of the folder `a` of the root. Paths never overlap in a store (one path is never
 * both a memory and a folder), so every segment but the last is a folder.
 */
export function memoryTree(memories: readonly MemoryLeaf[]): MemoryFolder {
  const root: MemoryFolder = { name: '', path: '/', folders: [], memories: [], count: 0 };
  for (const memory of memories) {
    const segments = memory.path.split('/').filter(Boolean);
    let folder = root;
    folder.count++;
    for (const segment of segments.slice(0, -1)) {
      let next = folder.folders.find((candidate) => candidate.name === segment);
      if (!next) {
        next = { name: segment, path: `${folder.path}${segment}/`, folders: [], memories: [], count: 0 };
        folder.folders.push(next);
      }
      next.count++;
      folder = next;
    }
    folder.memories.push({ ...memory, name: segments.at(-1) ?? memory.path });
  }
  const sort = (folder: MemoryFolder) => {
    folder.folders.sort(byName);
    folder.memories.sort(byName);
    folder.folders.forEach(sort);
  };
  sort(root);
  return root;
}

/** A size for people: bytes below a kilobyte, then kB and MB with one decimal. */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes.toLocaleString('en')} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toLocaleString('en', { maximumFractionDigits: 1 })} kB`;
  return `${(bytes / 1_000_000).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;
}
