import { Hono } from 'hono';
import * as v from 'valibot';
import {
  CreateMemoryInput,
  CreateMemoryStoreInput,
  DeleteMemoryQuery,
  ListMemoriesQuery,
  ListMemoryStoresQuery,
  ListMemoryVersionsQuery,
  UpdateMemoryInput,
  UpdateMemoryStoreInput,
  ViewQuery,
} from '../../domain/memory/index.ts';
import {
  MemoryDeletedShape,
  MemoryListPageShape,
  MemoryStorePageShape,
  MemoryVersionPageShape,
  PublicMemoryShape,
  PublicMemoryStoreShape,
  PublicMemoryVersionShape,
} from '../../domain/public-shapes/memory.ts';
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
} from '../../services/configuration/memory-stores/index.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

const StoreParams = v.object({ projectId: Uuid, storeId: Uuid });
const MemoryParams = v.object({ projectId: Uuid, storeId: Uuid, memoryId: Uuid });
const VersionParams = v.object({ projectId: Uuid, storeId: Uuid, memoryVersionId: Uuid });
/** A memory is at most 100 kB of text; its JSON escaping may take more (control characters). */
const MEMORY_BODY_MAX_BYTES = 1024 * 1024;

const base = '/projects/:projectId/memory-stores';

/** Memory stores (docs/memory.md): reads need `memory:read`, every change `memory:write`. */
export function memoryStoreRoutes() {
  return new Hono<AppEnv>()
    .get(
      base,
      route({
        summary: 'List memory stores',
        scopes: ['memory:read'],
        query: ListMemoryStoresQuery,
        responses: { 200: { description: 'A page of stores, newest first', schema: MemoryStorePageShape } },
      }),
      async (c) => {
        const { includeArchived, ...query } = validQuery(c, ListMemoryStoresQuery);
        return c.json(await listMemoryStores({ ctx: c.var.ctx, input: { ...query, includeArchived: includeArchived === 'true' } }));
      },
    )
    .post(
      base,
      route({
        summary: 'Create a memory store',
        scopes: ['memory:write'],
        body: CreateMemoryStoreInput,
        responses: { 201: { description: 'The store', schema: PublicMemoryStoreShape } },
      }),
      async (c) => {
        return c.json(await createMemoryStore({ ctx: c.var.ctx, input: await validBody(c, CreateMemoryStoreInput) }), 201);
      },
    )
    .get(
      `${base}/:storeId`,
      route({
        summary: 'Get a memory store with its size and counts',
        scopes: ['memory:read'],
        params: StoreParams,
        responses: { 200: { description: 'The store', schema: PublicMemoryStoreShape } },
      }),
      async (c) => {
        const { storeId } = validParams(c, StoreParams);
        return c.json(await getMemoryStore({ ctx: c.var.ctx, input: { storeId } }));
      },
    )
    .patch(
      `${base}/:storeId`,
      route({
        summary: "Change a store's name, description or metadata",
        scopes: ['memory:write'],
        params: StoreParams,
        body: UpdateMemoryStoreInput,
        responses: { 200: { description: 'The store', schema: PublicMemoryStoreShape } },
      }),
      async (c) => {
        const { storeId } = validParams(c, StoreParams);
        const body = await validBody(c, UpdateMemoryStoreInput);
        return c.json(await updateMemoryStore({ ctx: c.var.ctx, input: { storeId, ...body } }));
      },
    )
    .post(
      `${base}/:storeId/archive`,
      route({
        summary: 'Archive a memory store (read-only for good)',
        scopes: ['memory:write'],
        params: StoreParams,
        responses: { 200: { description: 'The archived store', schema: PublicMemoryStoreShape } },
      }),
      async (c) => {
        const { storeId } = validParams(c, StoreParams);
        return c.json(await archiveMemoryStore({ ctx: c.var.ctx, input: { storeId } }));
      },
    )
    .delete(
      `${base}/:storeId`,
      route({
        summary: 'Delete a memory store with its memories and versions',
        scopes: ['memory:write'],
        params: StoreParams,
        responses: { 200: { description: 'The store is gone', schema: MemoryDeletedShape } },
      }),
      async (c) => {
        const { storeId } = validParams(c, StoreParams);
        return c.json(await deleteMemoryStore({ ctx: c.var.ctx, input: { storeId } }));
      },
    )
    .get(
      `${base}/:storeId/memories`,
      route({
        summary: 'List memories by path prefix',
        scopes: ['memory:read'],
        params: StoreParams,
        query: ListMemoriesQuery,
        responses: { 200: { description: 'A page of memories (and directories, with depth) in path order', schema: MemoryListPageShape } },
      }),
      async (c) => {
        const { storeId } = validParams(c, StoreParams);
        return c.json(await listMemories({ ctx: c.var.ctx, input: { storeId, ...validQuery(c, ListMemoriesQuery) } }));
      },
    )
    .post(
      `${base}/:storeId/memories`,
      route({
        summary: 'Create a memory',
        scopes: ['memory:write'],
        params: StoreParams,
        query: ViewQuery,
        body: CreateMemoryInput,
        responses: { 201: { description: 'The memory', schema: PublicMemoryShape } },
      }),
      async (c) => {
        const { storeId } = validParams(c, StoreParams);
        const { view } = validQuery(c, ViewQuery);
        const body = await validBody(c, CreateMemoryInput, { maxBytes: MEMORY_BODY_MAX_BYTES });
        return c.json(await createMemory({ ctx: c.var.ctx, input: { storeId, view, ...body } }), 201);
      },
    )
    .get(
      `${base}/:storeId/memories/:memoryId`,
      route({
        summary: 'Get a memory',
        scopes: ['memory:read'],
        params: MemoryParams,
        query: ViewQuery,
        responses: { 200: { description: 'The memory (content unless view=basic)', schema: PublicMemoryShape } },
      }),
      async (c) => {
        const { storeId, memoryId } = validParams(c, MemoryParams);
        return c.json(await getMemory({ ctx: c.var.ctx, input: { storeId, memoryId, ...validQuery(c, ViewQuery) } }));
      },
    )
    .patch(
      `${base}/:storeId/memories/:memoryId`,
      route({
        summary: "Change a memory's content or path, optionally on a content precondition",
        scopes: ['memory:write'],
        params: MemoryParams,
        query: ViewQuery,
        body: UpdateMemoryInput,
        responses: { 200: { description: 'The memory', schema: PublicMemoryShape } },
      }),
      async (c) => {
        const { storeId, memoryId } = validParams(c, MemoryParams);
        const { view } = validQuery(c, ViewQuery);
        const body = await validBody(c, UpdateMemoryInput, { maxBytes: MEMORY_BODY_MAX_BYTES });
        return c.json(await updateMemory({ ctx: c.var.ctx, input: { storeId, memoryId, view, ...body } }));
      },
    )
    .delete(
      `${base}/:storeId/memories/:memoryId`,
      route({
        summary: 'Delete a memory (its versions stay), optionally on a content precondition',
        scopes: ['memory:write'],
        params: MemoryParams,
        query: DeleteMemoryQuery,
        responses: { 200: { description: 'The memory is gone', schema: MemoryDeletedShape } },
      }),
      async (c) => {
        const { storeId, memoryId } = validParams(c, MemoryParams);
        const { expectedContentSha256 } = validQuery(c, DeleteMemoryQuery);
        return c.json(await deleteMemory({ ctx: c.var.ctx, input: { storeId, memoryId, expectedContentSha256 } }));
      },
    )
    .get(
      `${base}/:storeId/memory-versions`,
      route({
        summary: "List a store's memory versions, newest first",
        scopes: ['memory:read'],
        params: StoreParams,
        query: ListMemoryVersionsQuery,
        responses: { 200: { description: 'A page of versions', schema: MemoryVersionPageShape } },
      }),
      async (c) => {
        const { storeId } = validParams(c, StoreParams);
        return c.json(await listMemoryVersions({ ctx: c.var.ctx, input: { storeId, ...validQuery(c, ListMemoryVersionsQuery) } }));
      },
    )
    .get(
      `${base}/:storeId/memory-versions/:memoryVersionId`,
      route({
        summary: 'Get a memory version',
        scopes: ['memory:read'],
        params: VersionParams,
        query: ViewQuery,
        responses: { 200: { description: 'The version', schema: PublicMemoryVersionShape } },
      }),
      async (c) => {
        const { storeId, memoryVersionId: versionId } = validParams(c, VersionParams);
        return c.json(await getMemoryVersion({ ctx: c.var.ctx, input: { storeId, versionId, ...validQuery(c, ViewQuery) } }));
      },
    )
    .post(
      `${base}/:storeId/memory-versions/:memoryVersionId/redact`,
      route({
        summary: "Erase a version's content and path for good (its hash and size stay)",
        scopes: ['memory:write'],
        params: VersionParams,
        responses: { 200: { description: 'The redacted version', schema: PublicMemoryVersionShape } },
      }),
      async (c) => {
        const { storeId, memoryVersionId: versionId } = validParams(c, VersionParams);
        return c.json(await redactMemoryVersion({ ctx: c.var.ctx, input: { storeId, versionId } }));
      },
    );
}
