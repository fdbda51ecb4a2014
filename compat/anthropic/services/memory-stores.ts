import {
  archiveMemoryStore,
  createMemory,
  createMemoryStore,
  deleteMemory,
  deleteMemoryStore,
  getMemory,
  getMemoryStore,
  getMemoryVersion,
  listMemories,
  listMemoryStores,
  listMemoryVersions,
  redactMemoryVersion,
  updateMemory,
  updateMemoryStore,
} from '../../../services/configuration/memory-stores/index.ts';
import type { CreateMemoryInput, CreateMemoryStoreInput, UpdateMemoryInput, UpdateMemoryStoreInput } from '../../../domain/memory/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { renderMemory, renderMemoryStore, renderMemoryVersion } from '../domain/memory-stores.ts';

/**
 * Claude Managed Agents memory stores (`/compat/anthropic/v1/memory_stores`) over our memory
 * verbs: the same rules, limits, versions and preconditions, in the SDK's shapes. Ids are ours.
 */
type View = 'basic' | 'full';
type Paging = { limit: number; page: string | undefined };
const cursorOf = (paging: Paging) => ({ limit: paging.limit, ...(paging.page ? { cursor: paging.page } : {}) });

export const createCompatMemoryStore = async (ctx: ServiceContext, input: CreateMemoryStoreInput) => renderMemoryStore(await createMemoryStore({ ctx, input }));

export const getCompatMemoryStore = async (ctx: ServiceContext, storeId: string) => renderMemoryStore(await getMemoryStore({ ctx, input: { storeId } }));

export const updateCompatMemoryStore = async (ctx: ServiceContext, input: { storeId: string } & UpdateMemoryStoreInput) =>
  renderMemoryStore(await updateMemoryStore({ ctx, input }));

export async function listCompatMemoryStores(ctx: ServiceContext, input: Paging & { includeArchived: boolean }) {
  const page = await listMemoryStores({ ctx, input: { ...cursorOf(input), includeArchived: input.includeArchived } });
  return { data: page.data.map(renderMemoryStore), next_page: page.pageInfo.nextCursor };
}

export const archiveCompatMemoryStore = async (ctx: ServiceContext, storeId: string) =>
  renderMemoryStore(await archiveMemoryStore({ ctx, input: { storeId } }));

export async function deleteCompatMemoryStore(ctx: ServiceContext, storeId: string) {
  const deleted = await deleteMemoryStore({ ctx, input: { storeId } });
  return { id: deleted.id, type: 'memory_store_deleted' as const };
}

export const createCompatMemory = async (ctx: ServiceContext, input: { storeId: string; view: View } & CreateMemoryInput) =>
  renderMemory(await createMemory({ ctx, input }));

export const getCompatMemory = async (ctx: ServiceContext, input: { storeId: string; memoryId: string; view: View }) =>
  renderMemory(await getMemory({ ctx, input }));

export const updateCompatMemory = async (ctx: ServiceContext, input: { storeId: string; memoryId: string; view: View } & UpdateMemoryInput) =>
  renderMemory(await updateMemory({ ctx, input }));

export async function listCompatMemories(
  ctx: ServiceContext,
  input: Paging & { storeId: string; pathPrefix?: string | undefined; depth?: number | undefined; view: View },
) {
  const page = await listMemories({
    ctx,
    input: { storeId: input.storeId, ...cursorOf(input), pathPrefix: input.pathPrefix, depth: input.depth, view: input.view },
  });
  return {
    data: page.data.map((item) => (item.type === 'prefix' ? { type: 'memory_prefix' as const, path: item.path } : renderMemory(item))),
    next_page: page.pageInfo.nextCursor,
  };
}

export async function deleteCompatMemory(ctx: ServiceContext, input: { storeId: string; memoryId: string; expectedContentSha256?: string | undefined }) {
  const deleted = await deleteMemory({ ctx, input });
  return { id: deleted.id, type: 'memory_deleted' as const };
}

export async function listCompatMemoryVersions(
  ctx: ServiceContext,
  input: Paging & {
    storeId: string;
    memoryId?: string | undefined;
    sessionId?: string | undefined;
    operation?: 'created' | 'modified' | 'deleted' | undefined;
    view: View;
  },
) {
  const page = await listMemoryVersions({
    ctx,
    input: { storeId: input.storeId, ...cursorOf(input), memoryId: input.memoryId, sessionId: input.sessionId, operation: input.operation, view: input.view },
  });
  return { data: page.data.map(renderMemoryVersion), next_page: page.pageInfo.nextCursor };
}

export const getCompatMemoryVersion = async (ctx: ServiceContext, input: { storeId: string; versionId: string; view: View }) =>
  renderMemoryVersion(await getMemoryVersion({ ctx, input }));

export const redactCompatMemoryVersion = async (ctx: ServiceContext, input: { storeId: string; versionId: string }) =>
  renderMemoryVersion(await redactMemoryVersion({ ctx, input }));
