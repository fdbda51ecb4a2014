import { and, asc, eq, getTableColumns, gt, like, sql } from 'drizzle-orm';
import { memories } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { likeLiteral, MEMORY_FULL_VIEW_MAX_LIMIT } from '../../../domain/memory/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { findMemoryStore } from './load.ts';
import { toMemoryResponse, type MemoryView, type PublicMemory } from './public.ts';

export type MemoryListItem = ({ type: 'memory' } & PublicMemory) | { type: 'prefix'; path: string };

/**
 * The store's memories under `pathPrefix` in path order (byte-wise), a page at a time. With
 * `depth` n > 0, memories more than n segments below the prefix are rolled up into one `prefix`
 * item per directory at depth n (`/notes/2026/`), which counts toward the page like a memory.
 * The cursor is the last item's path.
 */
export async function listMemories({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: {
    storeId: string;
    limit: number;
    cursor?: string | undefined;
    pathPrefix?: string | undefined;
    depth?: number | undefined;
    view?: MemoryView | undefined;
  };
}): Promise<{ data: MemoryListItem[]; pageInfo: { nextCursor: string | null } }> {
  const actor = requireActor(ctx);
  const view = input.view ?? 'basic';
  // With content, a page holds at most 20 items (the hosted API's cap).
  const limit = view === 'full' ? Math.min(input.limit, MEMORY_FULL_VIEW_MAX_LIMIT) : input.limit;
  const after = input.cursor === undefined ? null : decodePathCursor(input.cursor);
  const prefix = input.pathPrefix ?? '/';
  const depth = input.depth ?? 0;
  // A memory carries its store's project, so the page query alone keeps to the actor's project;
  // the store itself is looked up only to tell an empty page from a store that is not there.
  const under = and(
    eq(memories.storeId, input.storeId),
    eq(memories.organizationId, actor.organizationId),
    eq(memories.projectId, actor.projectId),
    prefix === '/' ? undefined : like(memories.path, `${likeLiteral(prefix)}%`),
  );

  if (depth === 0) {
    const { content, ...withoutContent } = getTableColumns(memories);
    const rows = await ctx.db
      .select(view === 'full' ? { ...withoutContent, content } : { ...withoutContent, content: sql<string>`''` })
      .from(memories)
      .where(and(under, after === null ? undefined : gt(memories.path, after)))
      .orderBy(asc(memories.path))
      .limit(limit + 1);
    if (rows.length === 0) await findMemoryStore(ctx, actor, input.storeId);
    const page = rows.slice(0, limit);
    return {
      data: page.map((row) => ({ type: 'memory' as const, ...toMemoryResponse(row, view) })),
      pageInfo: { nextCursor: rows.length > limit ? encodePathCursor(page.at(-1)!.path) : null },
    };
  }

  const store = await findMemoryStore(ctx, actor, input.storeId);
  // The item each memory falls under: itself within `depth` segments, else its directory at `depth`.
  const rest = sql`substr(${memories.path}, ${prefix.length + 1}::int)`;
  const parts = sql`string_to_array(${rest}, '/')`;
  const key = sql<string>`case when array_length(${parts}, 1) > ${depth}::int
    then ${prefix}::text || array_to_string((${parts})[1:${depth}::int], '/') || '/'
    else ${memories.path} end collate "C"`;
  const keys = await ctx.db
    .select({ key: sql<string>`k.key`, isPrefix: sql<boolean>`k.key like '%/'` })
    .from(
      ctx.db
        .selectDistinct({ key: key.as('key') })
        .from(memories)
        .where(under)
        .as('k'),
    )
    .where(after === null ? undefined : sql`k.key > ${after}`)
    .orderBy(sql`k.key`)
    .limit(limit + 1);
  const page = keys.slice(0, limit);
  const paths = page.filter((entry) => !entry.isPrefix).map((entry) => entry.key);
  const rows =
    paths.length === 0
      ? []
      : await ctx.db
          .select()
          .from(memories)
          .where(and(eq(memories.storeId, store.id), sql`${memories.path} in ${paths}`));
  const byPath = new Map(rows.map((row) => [row.path, row]));
  const data: MemoryListItem[] = page.flatMap((entry): MemoryListItem[] => {
    if (entry.isPrefix) return [{ type: 'prefix', path: entry.key }];
    const row = byPath.get(entry.key);
    return row ? [{ type: 'memory', ...toMemoryResponse(row, view) }] : [];
  });
  return { data, pageInfo: { nextCursor: keys.length > limit ? encodePathCursor(page.at(-1)!.key) : null } };
}

const encodePathCursor = (path: string) => Buffer.from(`p1|${path}`, 'utf8').toString('base64url');

function decodePathCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith('p1|') || !text.slice(3).startsWith('/')) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  return text.slice(3);
}
