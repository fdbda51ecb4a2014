import { and, eq, inArray } from 'drizzle-orm';
import { memories, memoryStores, memoryVersions, type MemoryAuthor } from '../../../db/schema/index.ts';
import { DomainError } from '../../../domain/errors.ts';
import { MEMORY_CONTENT_MAX_BYTES, memoryPathProblem, type AttachedMemoryStore } from '../../../domain/memory/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemoryStore } from './load.ts';
import { applyMemoryChange, contentSha256 } from './write-memory.ts';

type Scope = { organizationId: string; projectId: string };

/** A store as mounted for one command: what each path held (to bring the mount in line, and to write back against). */
export type MountedStore = {
  store: AttachedMemoryStore;
  /** Path → the memory and the SHA-256 the command was shown. */
  mounted: Map<string, { memoryId: string; sha: string }>;
};

/** What a caller last read of each store, by store id, with the store's version count then. */
export type MountIndexCache = Map<string, { versionCount: number; mounted: MountedStore['mounted'] }>;

/**
 * What a sandbox command is shown of the session's stores (docs/decisions/memory-in-sessions.md):
 * the path and hash of every memory of each attached store; the content of those the mount lacks
 * comes from `memoryContents`. Every change of a store counts a version, so a store whose version
 * count is the one `cache` holds is unchanged and its paths are not read again. A store deleted
 * since attachment shows empty.
 */
export async function readMountedStores(
  ctx: ServiceContext,
  scope: Scope,
  stores: readonly AttachedMemoryStore[],
  cache: MountIndexCache = new Map(),
): Promise<MountedStore[]> {
  if (stores.length === 0) return [];
  const inScope = and(eq(memoryStores.organizationId, scope.organizationId), eq(memoryStores.projectId, scope.projectId));
  const counts = await ctx.db
    .select({ id: memoryStores.id, versionCount: memoryStores.versionCount })
    .from(memoryStores)
    .where(
      and(
        inScope,
        inArray(
          memoryStores.id,
          stores.map((store) => store.storeId),
        ),
      ),
    );
  const countOf = new Map(counts.map((row) => [row.id, row.versionCount]));
  const stale = stores.filter((store) => countOf.has(store.storeId) && cache.get(store.storeId)?.versionCount !== countOf.get(store.storeId));
  const rows =
    stale.length === 0
      ? []
      : await ctx.db
          .select({ storeId: memories.storeId, id: memories.id, path: memories.path, sha: memories.contentSha256 })
          .from(memories)
          .where(
            and(
              eq(memories.organizationId, scope.organizationId),
              eq(memories.projectId, scope.projectId),
              inArray(
                memories.storeId,
                stale.map((store) => store.storeId),
              ),
            ),
          );
  for (const store of stale) {
    const mounted = new Map(rows.filter((row) => row.storeId === store.storeId).map((row) => [row.path, { memoryId: row.id, sha: row.sha }]));
    cache.set(store.storeId, { versionCount: countOf.get(store.storeId)!, mounted });
  }
  return stores.map((store) => ({ store, mounted: countOf.has(store.storeId) ? new Map(cache.get(store.storeId)!.mounted) : new Map() }));
}

/** The content of some memories of a store, by path (what a mount must write). */
export async function memoryContents(ctx: ServiceContext, scope: Scope, storeId: string, paths: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let at = 0; at < paths.length; at += 1_000) {
    const rows = await ctx.db
      .select({ path: memories.path, content: memories.content })
      .from(memories)
      .where(
        and(
          eq(memories.organizationId, scope.organizationId),
          eq(memories.projectId, scope.projectId),
          eq(memories.storeId, storeId),
          inArray(memories.path, paths.slice(at, at + 1_000)),
        ),
      );
    for (const row of rows) found.set(row.path, row.content);
  }
  return found;
}

export type WriteBackReport = {
  written: Array<{ store: string; path: string; operation: string; versionId: string }>;
  /** Why a change was not written, one line each (a conflict, a bad path or content). */
  problems: string[];
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Writes back what a command changed in a `read_write` store's mount: a new file is created, a
 * changed one updated and a removed one deleted, each its own transaction with the precondition
 * of what the command was shown (so a concurrent change by another session is a conflict the
 * agent is told about, never overwritten), each keyed by the command (`cmd:<toolCallId>:<path>`),
 * so a retried step writes every file once.
 */
export async function writeBackMount(
  ctx: ServiceContext,
  input: {
    scope: Scope;
    author: MemoryAuthor;
    toolCallId: string;
    mounted: MountedStore;
    /** The mount after the command: changed or new files with their bytes, the rest with the hash they kept. */
    after: Array<{ path: string; content: Buffer } | { path: string; unchangedSha256: string }>;
    /** What the caller last read of the stores: kept current with these writes when no one else wrote between. */
    cache?: MountIndexCache;
  },
): Promise<WriteBackReport> {
  const { store } = input.mounted;
  const report: WriteBackReport = { written: [], problems: [] };
  const seen = new Set<string>();
  for (const file of input.after) {
    seen.add(file.path);
    if ('unchangedSha256' in file) continue; // untouched since the mount was brought in line
    const problem = memoryPathProblem(file.path) ?? contentProblem(file.content);
    if (problem) {
      report.problems.push(`${store.mount}${file.path}: not written: ${problem}`);
      continue;
    }
    const content = utf8.decode(file.content);
    const before = input.mounted.mounted.get(file.path);
    if (before && before.sha === contentSha256(content)) continue;
    await change(
      ctx,
      input,
      report,
      file.path,
      before ? { kind: 'update', memoryId: before.memoryId, expected: before.sha, content } : { kind: 'create', content },
    );
  }
  for (const [path, before] of input.mounted.mounted) {
    if (!seen.has(path)) await change(ctx, input, report, path, { kind: 'delete', memoryId: before.memoryId, expected: before.sha });
  }
  return report;
}

function contentProblem(content: Buffer): string | null {
  if (content.length > MEMORY_CONTENT_MAX_BYTES) return `larger than ${MEMORY_CONTENT_MAX_BYTES} bytes`;
  try {
    const text = utf8.decode(content);
    if (text.includes('\u0000')) return 'holds a NUL character';
  } catch {
    return 'not UTF-8 text';
  }
  return null;
}

type FileChange =
  | { kind: 'create'; content: string }
  | { kind: 'update'; memoryId: string; expected: string; content: string }
  | { kind: 'delete'; memoryId: string; expected: string };

async function change(
  ctx: ServiceContext,
  input: { scope: Scope; author: MemoryAuthor; toolCallId: string; mounted: MountedStore; cache?: MountIndexCache },
  report: WriteBackReport,
  path: string,
  wanted: FileChange,
): Promise<void> {
  const name = input.mounted.store.mount;
  const sourceKey = `cmd:${input.toolCallId}:${path}`;
  try {
    const applied = await withTransaction(ctx, async (tx) => {
      const store = await findMemoryStore(tx, input.scope, input.mounted.store.storeId, { lock: true, writable: true });
      const [earlier] = await tx.db
        .select({ id: memoryVersions.id, operation: memoryVersions.operation })
        .from(memoryVersions)
        .where(and(eq(memoryVersions.storeId, store.id), eq(memoryVersions.sourceKey, sourceKey)));
      if (earlier) {
        report.written.push({ store: name, path, operation: earlier.operation, versionId: earlier.id });
        return null;
      }
      const current =
        wanted.kind === 'create'
          ? null
          : ((
              await tx.db
                .select()
                .from(memories)
                .where(and(eq(memories.storeId, store.id), eq(memories.id, wanted.memoryId)))
            )[0] ?? null);
      if (wanted.kind !== 'create' && !current) {
        // Deleted by someone else since the command was shown it.
        if (wanted.kind === 'update') report.problems.push(`${name}${path}: not written: the memory was deleted by someone else during the command`);
        return null;
      }
      const { memory, version } = await applyMemoryChange(tx, {
        store,
        author: input.author,
        sourceKey,
        change:
          wanted.kind === 'create'
            ? { kind: 'create', path, content: wanted.content }
            : wanted.kind === 'update'
              ? { kind: 'update', memory: current!, content: wanted.content, expectedSha256: wanted.expected }
              : { kind: 'delete', memory: current!, expectedSha256: wanted.expected },
      });
      if (!version) return null;
      report.written.push({ store: name, path, operation: version.operation, versionId: version.id });
      return { countBefore: store.versionCount, memory };
    });
    // The store moved by this version alone: what the caller knows of it is current again.
    const known = input.cache?.get(input.mounted.store.storeId);
    if (!applied || !known || known.versionCount !== applied.countBefore) return;
    known.versionCount = applied.countBefore + 1;
    if (applied.memory) known.mounted.set(applied.memory.path, { memoryId: applied.memory.id, sha: applied.memory.contentSha256 });
    else known.mounted.delete(path);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const reason = (error.details as Record<string, unknown> | undefined)?.reason;
    const why =
      reason === 'memory_precondition_failed'
        ? 'another session changed this memory during the command; read it again and merge your change'
        : reason === 'memory_path_conflict'
          ? `${error.message} (another session wrote it during the command; read it again and merge your change)`
          : error.message;
    report.problems.push(`${name}${path}: not written: ${why}`);
  }
}
