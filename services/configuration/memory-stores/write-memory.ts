import { createHash } from 'node:crypto';
import { and, eq, inArray, like, ne, or, sql } from 'drizzle-orm';
import { memories, memoryStores, memoryVersions, type MemoryAuthor } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { ancestorPaths, likeLiteral } from '../../../domain/memory/index.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { MemoryRow, MemoryStoreRow, MemoryVersionRow } from './public.ts';

/** Lowercase hex SHA-256 of the UTF-8 bytes: what a caller computes for a precondition. */
export const contentSha256 = (content: string) => createHash('sha256').update(content, 'utf8').digest('hex');

export type MemoryChange =
  | { kind: 'create'; path: string; content: string }
  | { kind: 'update'; memory: MemoryRow; path?: string | undefined; content?: string | undefined; expectedSha256?: string | undefined }
  | { kind: 'delete'; memory: MemoryRow; expectedSha256?: string | undefined };

export type MemoryChangeResult = { memory: MemoryRow | null; version: MemoryVersionRow | null };

/**
 * Applies one change to a memory of a store whose row the caller holds (`findMemoryStore` with
 * `lock` and `writable`, in its transaction): the memory row, an immutable version, the store's
 * counters and the `memory.written`/`memory.deleted` event, together. A precondition on the
 * content's SHA-256 that no longer holds is a 409, unless the memory already is what was asked
 * (a retried write); an update that changes nothing writes no version.
 */
export async function applyMemoryChange(
  tx: ServiceContext,
  input: { store: MemoryStoreRow; author: MemoryAuthor; change: MemoryChange; sourceKey?: string },
): Promise<MemoryChangeResult> {
  const { store, author, change } = input;
  const sourceKey = input.sourceKey ?? null;
  const now = tx.clock.now();
  if (change.kind !== 'create') assertPrecondition(change);

  if (change.kind === 'create') {
    await assertPathFree(tx, store.id, change.path, null);
    const sha = contentSha256(change.content);
    const size = Buffer.byteLength(change.content, 'utf8');
    const memoryId = crypto.randomUUID();
    const version = await insertVersion(tx, {
      store,
      author,
      memoryId,
      operation: 'created',
      path: change.path,
      content: change.content,
      sha,
      size,
      now,
      sourceKey,
    });
    const [memory] = await tx.db
      .insert(memories)
      .values({
        id: memoryId,
        organizationId: store.organizationId,
        projectId: store.projectId,
        storeId: store.id,
        path: change.path,
        content: change.content,
        contentSha256: sha,
        contentSizeBytes: size,
        versionId: version.id,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await countChange(tx, store.id, { memories: 1, bytes: size });
    await announce(tx, store, author, memory!, version);
    return { memory: memory!, version };
  }

  const current = change.memory;
  if (change.kind === 'delete') {
    const version = await insertVersion(tx, {
      store,
      author,
      memoryId: current.id,
      operation: 'deleted',
      path: current.path,
      content: null,
      sha: null,
      size: null,
      now,
      sourceKey,
    });
    await tx.db.delete(memories).where(eq(memories.id, current.id));
    await countChange(tx, store.id, { memories: -1, bytes: -current.contentSizeBytes });
    await announce(tx, store, author, current, version);
    return { memory: null, version };
  }

  const path = change.path ?? current.path;
  const content = change.content ?? current.content;
  if (path === current.path && content === current.content) return { memory: current, version: null };
  if (path !== current.path) await assertPathFree(tx, store.id, path, current.id);
  const sha = content === current.content ? current.contentSha256 : contentSha256(content);
  const size = Buffer.byteLength(content, 'utf8');
  const version = await insertVersion(tx, { store, author, memoryId: current.id, operation: 'modified', path, content, sha, size, now, sourceKey });
  const [memory] = await tx.db
    .update(memories)
    .set({ path, content, contentSha256: sha, contentSizeBytes: size, versionId: version.id, updatedAt: now })
    .where(eq(memories.id, current.id))
    .returning();
  await countChange(tx, store.id, { memories: 0, bytes: size - current.contentSizeBytes });
  await announce(tx, store, author, memory!, version);
  return { memory: memory!, version };
}

function assertPrecondition(change: Extract<MemoryChange, { kind: 'update' | 'delete' }>) {
  const expected = change.expectedSha256;
  if (expected === undefined || expected === change.memory.contentSha256) return;
  // Already exactly what was asked: a retry of a write that landed succeeds.
  if (change.kind === 'update' && (change.path ?? change.memory.path) === change.memory.path && change.content === change.memory.content) return;
  throw new ConflictError('The memory changed since it was read: its content no longer has the SHA-256 the precondition names. Read it again and retry.', {
    reason: 'memory_precondition_failed',
    currentContentSha256: change.memory.contentSha256,
  });
}

/** No other memory at the path, at an ancestor of it, or below it (409 naming the one in the way). */
async function assertPathFree(tx: ServiceContext, storeId: string, path: string, self: string | null) {
  const [clash] = await tx.db
    .select({ id: memories.id, path: memories.path })
    .from(memories)
    .where(
      and(
        eq(memories.storeId, storeId),
        self ? ne(memories.id, self) : undefined,
        or(inArray(memories.path, [path, ...ancestorPaths(path)]), like(memories.path, `${likeLiteral(path)}/%`)),
      ),
    )
    .limit(1);
  if (!clash) return;
  const why = clash.path === path ? 'is taken by another memory' : 'overlaps another memory (one path is a directory of the other)';
  throw new ConflictError(`The path ${path} ${why}: ${clash.path}`, {
    reason: 'memory_path_conflict',
    conflictingPath: clash.path,
    conflictingMemoryId: clash.id,
  });
}

async function insertVersion(
  tx: ServiceContext,
  values: {
    store: MemoryStoreRow;
    author: MemoryAuthor;
    memoryId: string;
    operation: 'created' | 'modified' | 'deleted';
    path: string;
    content: string | null;
    sha: string | null;
    size: number | null;
    now: Date;
    sourceKey: string | null;
  },
): Promise<MemoryVersionRow> {
  const { store, author } = values;
  const [row] = await tx.db
    .insert(memoryVersions)
    .values({
      organizationId: store.organizationId,
      projectId: store.projectId,
      storeId: store.id,
      memoryId: values.memoryId,
      operation: values.operation,
      path: values.path,
      content: values.content,
      contentSha256: values.sha,
      contentSizeBytes: values.size,
      author,
      sessionId: author.type === 'session' ? author.sessionId : null,
      runId: author.type === 'session' ? author.runId : null,
      sourceKey: values.sourceKey,
      createdAt: values.now,
    })
    .returning();
  return row!;
}

async function countChange(tx: ServiceContext, storeId: string, delta: { memories: number; bytes: number }) {
  await tx.db
    .update(memoryStores)
    .set({
      memoryCount: sql`${memoryStores.memoryCount} + ${delta.memories}`,
      sizeBytes: sql`${memoryStores.sizeBytes} + ${delta.bytes}`,
      versionCount: sql`${memoryStores.versionCount} + 1`,
    })
    .where(eq(memoryStores.id, storeId));
}

/** `memory.written` or `memory.deleted`: where and how large, by whom; never the content. */
async function announce(tx: ServiceContext, store: MemoryStoreRow, author: MemoryAuthor, memory: MemoryRow, version: MemoryVersionRow) {
  const deleted = version.operation === 'deleted';
  await appendProductEvent(tx, {
    organizationId: store.organizationId,
    projectId: store.projectId,
    aggregateType: 'memory_store',
    aggregateId: store.id,
    kind: deleted ? 'memory.deleted' : 'memory.written',
    publicPayload: {
      storeId: store.id,
      memoryId: memory.id,
      versionId: version.id,
      path: version.path,
      operation: version.operation,
      sizeBytes: deleted ? null : version.contentSizeBytes,
      sessionId: author.type === 'session' ? author.sessionId : null,
      runId: author.type === 'session' ? author.runId : null,
    },
  });
}
