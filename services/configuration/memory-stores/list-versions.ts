import { and, desc, eq, lt, or } from 'drizzle-orm';
import { memoryVersions } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { MEMORY_FULL_VIEW_MAX_LIMIT } from '../../../domain/memory/index.ts';
import { decodeKeysetCursor, toPage, type Page } from '../../../domain/pagination.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findMemoryStore } from './load.ts';
import { toMemoryVersionResponse, type MemoryView, type PublicMemoryVersion } from './public.ts';

/** The store's versions, newest first, optionally of one memory, one session or one kind of change. */
export async function listMemoryVersions({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: {
    storeId: string;
    limit: number;
    cursor?: string | undefined;
    memoryId?: string | undefined;
    sessionId?: string | undefined;
    operation?: 'created' | 'modified' | 'deleted' | undefined;
    view?: MemoryView | undefined;
  };
}): Promise<Page<PublicMemoryVersion>> {
  const actor = requireActor(ctx);
  const view = input.view ?? 'basic';
  // With content, a page holds at most 20 items (the hosted API's cap).
  const limit = view === 'full' ? Math.min(input.limit, MEMORY_FULL_VIEW_MAX_LIMIT) : input.limit;
  const after = input.cursor === undefined ? null : decodeKeysetCursor(input.cursor);
  if (input.cursor !== undefined && !after) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  const store = await findMemoryStore(ctx, actor, input.storeId);
  const rows = await ctx.db
    .select()
    .from(memoryVersions)
    .where(
      and(
        eq(memoryVersions.storeId, store.id),
        input.memoryId ? eq(memoryVersions.memoryId, input.memoryId) : undefined,
        input.sessionId ? eq(memoryVersions.sessionId, input.sessionId) : undefined,
        input.operation ? eq(memoryVersions.operation, input.operation) : undefined,
        after
          ? or(lt(memoryVersions.createdAt, after.createdAt), and(eq(memoryVersions.createdAt, after.createdAt), lt(memoryVersions.id, after.id)))
          : undefined,
      ),
    )
    .orderBy(desc(memoryVersions.createdAt), desc(memoryVersions.id))
    .limit(limit + 1);
  return toPage(rows, limit, (row) => toMemoryVersionResponse(row, view));
}
