import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';

/** How long a barrier may take to come back before the tree counts as changed anyhow (a safe answer). */
const BARRIER_TIMEOUT_MS = 2_000;
/** More distinct entries than this are cheaper to find by walking the tree. */
const MAX_ENTRIES = 200;
/**
 * More raw events than this and the kernel's queue may have overflowed, dropping some (libuv does
 * not report the overflow): the tree is walked instead.
 */
const MAX_EVENTS = (() => {
  try {
    return Math.min(4_096, Math.floor(Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8')) / 2) || 4_096);
  } catch {
    return 4_096;
  }
})();

/** What moved in a watched tree: nothing, these entries (files or directories, by full path), or unknown. */
export type TreeChanges = { kind: 'none' } | { kind: 'entries'; entries: string[] } | { kind: 'unknown' };

/**
 * What changed in a memory mount's tree since the last `watch` or `settled`, from inotify (one
 * `fs.watch` per directory), so a command that left the mount alone costs no walk over its files
 * and one that changed a few costs a look at those. Every write, create, delete, rename or
 * attribute change in a watched directory is an event naming the entry, and a new directory is an
 * event in its parent, so the entries named are everything that can have moved. Events come in
 * the kernel's order on one queue: `changed()` creates a file of a name no one can guess and waits
 * for its event, after which every earlier event has been seen. What cannot be watched (the watch
 * limit, an error, a barrier that does not come back, a flood of events) answers "unknown", and
 * the caller walks the tree. Writes through a shared memory map raise no inotify event
 * (inotify(7)); a write through a second hard link names only that link (the caller walks when a
 * file has more than one).
 */
export class MountWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly touched = new Set<string>();
  private events = 0;
  private broken = false;
  /** Our own barriers' names: their events are not changes. */
  private readonly barriers = new Set<string>();
  private waiting: { name: string; resolve: () => void } | null = null;
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** Watches exactly these directories (the whole tree as just walked or written) from now on, settled. */
  watch(dirs: Iterable<string>): void {
    this.close();
    this.broken = false;
    this.add(dirs);
    this.settled();
  }

  /** Watches these directories too (ones the caller found new), replacing an older watch of a path. */
  add(dirs: Iterable<string>): void {
    try {
      for (const dir of dirs) {
        this.watchers.get(dir)?.close();
        const watcher = watch(dir, { persistent: false }, (_event, name) => this.onEvent(dir, name));
        watcher.on('error', () => (this.broken = true));
        this.watchers.set(dir, watcher);
      }
    } catch {
      this.broken = true;
    }
  }

  /** Whether the tree is watched at all (else every `changed()` answers "unknown"). */
  watching(): boolean {
    return !this.broken && this.watchers.has(this.root);
  }

  /** What may have changed since `watch` or `settled` (every event up to now counted). */
  async changed(): Promise<TreeChanges> {
    if (!this.watching()) return { kind: 'unknown' };
    const name = `.barrier-${randomBytes(16).toString('hex')}`;
    this.barriers.add(name);
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), BARRIER_TIMEOUT_MS);
      this.waiting = {
        name,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
    });
    try {
      const file = path.join(this.root, name);
      closeSync(openSync(file, 'wx', 0o600));
      unlinkSync(file);
    } catch {
      this.waiting = null;
      return { kind: 'unknown' };
    }
    const seen = await arrived;
    this.waiting = null;
    // Only this barrier's removal can still be on its way; the older names' events are all in.
    for (const old of this.barriers) if (old !== name) this.barriers.delete(old);
    if (!seen || this.broken || this.events > MAX_EVENTS || this.touched.size > MAX_ENTRIES) return { kind: 'unknown' };
    return this.touched.size === 0 ? { kind: 'none' } : { kind: 'entries', entries: [...this.touched] };
  }

  /** The caller knows the tree as it is now: later events count from here. */
  settled(): void {
    this.touched.clear();
    this.events = 0;
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private onEvent(dir: string, name: string | Buffer | null): void {
    const text = name === null ? null : String(name);
    if (text !== null && dir === this.root && this.barriers.has(text)) {
      if (this.waiting?.name === text) this.waiting.resolve();
      return;
    }
    this.events++;
    // No name: anything in the directory may have moved.
    this.touched.add(text === null ? dir : path.join(dir, text));
  }
}
