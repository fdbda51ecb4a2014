import { isWithin, parentDirectories, pathIdentity, type EntryKind } from './path.ts';

/**
 * Folder and file placement in a draft. A draft stores every folder explicitly (so empty
 * folders survive), and every entry's parent folders exist. Paths are unique case-insensitively,
 * and one spelling is kept per folder: `Refs/a.md` next to an existing `refs/` is refused rather
 * than silently moved.
 */
export type TreeEntry = { path: string; kind: EntryKind };

export type Placement = { ok: true; existing: TreeEntry | null; createDirectories: string[] } | { ok: false; message: string };

/** Where `path` (a valid package path of `kind`) would go: the folders to create, or why it cannot. */
export function planPlacement(entries: readonly TreeEntry[], path: string, kind: EntryKind): Placement {
  const byIdentity = new Map(entries.map((entry) => [pathIdentity(entry.path), entry]));
  const createDirectories: string[] = [];
  for (const folder of parentDirectories(path)) {
    const found = byIdentity.get(pathIdentity(folder));
    if (!found) createDirectories.push(folder);
    else if (found.kind === 'file') return { ok: false, message: `"${found.path}" is a file, not a folder` };
    else if (found.path !== folder) return { ok: false, message: `the folder "${folder}" exists as "${found.path}" (paths are case-insensitive)` };
  }
  const existing = byIdentity.get(pathIdentity(path)) ?? null;
  if (existing && existing.path !== path) return { ok: false, message: `"${path}" collides with "${existing.path}" (paths are case-insensitive)` };
  if (existing && existing.kind !== kind) return { ok: false, message: `"${path}" is a ${existing.kind === 'directory' ? 'folder' : 'file'}` };
  return { ok: true, existing, createDirectories };
}

/** The entry named by `path` (case-insensitively) and everything inside it when it is a folder. */
export function entriesAt<E extends TreeEntry>(entries: readonly E[], path: string): { entry: E | null; within: E[] } {
  const entry = entries.find((candidate) => pathIdentity(candidate.path) === pathIdentity(path)) ?? null;
  if (!entry || entry.kind === 'file') return { entry, within: [] };
  return { entry, within: entries.filter((candidate) => candidate !== entry && isWithin(candidate.path, entry.path)) };
}
