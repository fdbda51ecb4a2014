import type { Context } from 'hono';
import { Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { memoryPrefixProblem } from '../../../domain/memory/index.ts';
import type { AppEnv } from '../../../api/env.ts';
import { CmaCreateMemory, CmaCreateMemoryStore, CmaUpdateMemory, CmaUpdateMemoryStore } from '../domain/memory-stores.ts';
import {
  archiveCompatMemoryStore,
  createCompatMemory,
  createCompatMemoryStore,
  deleteCompatMemory,
  deleteCompatMemoryStore,
  getCompatMemory,
  getCompatMemoryStore,
  getCompatMemoryVersion,
  listCompatMemories,
  listCompatMemoryStores,
  listCompatMemoryVersions,
  redactCompatMemoryVersion,
  updateCompatMemory,
  updateCompatMemoryStore,
} from '../services/memory-stores.ts';
import { needs } from './auth.ts';
import { deduped } from './retries.ts';
import { flag, isOurId, jsonBody, paging, parsed } from './requests.ts';

const idParam = (c: Context<AppEnv>, name: string, what: string) => {
  const id = c.req.param(name) ?? '';
  if (!isOurId(id)) throw new NotFoundError(`No ${what} with that id in this project`);
  return id;
};
const storeOf = (c: Context<AppEnv>) => idParam(c, 'storeId', 'memory store');

/** `view`, defaulting as the SDK documents: `full` on retrieve, `basic` on list, create and update. */
function viewOf(c: Context<AppEnv>, fallback: 'basic' | 'full'): 'basic' | 'full' {
  const view = c.req.query('view');
  if (view === undefined || view === '') return fallback;
  if (view === 'basic' || view === 'full') return view;
  throw new ValidationError('view must be basic or full', { path: 'query.view' });
}
const optionalQuery = (c: Context<AppEnv>, name: string) => {
  const value = c.req.query(name);
  return value === undefined || value === '' ? undefined : value;
};
const Depth = v.pipe(
  v.string(),
  v.regex(/^\d{1,2}$/, 'depth must be an integer from 0 to 20'),
  v.transform(Number),
  v.maxValue(20, 'depth must be an integer from 0 to 20'),
);
const Operation = v.picklist(['created', 'modified', 'deleted'], 'operation must be created, modified or deleted');
const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'expected_content_sha256 must be 64 lowercase hex digits'));
/** `path_prefix`: a folder (it ends with "/"), as the core's listing rule says. */
function pathPrefixOf(c: Context<AppEnv>): string | undefined {
  const prefix = optionalQuery(c, 'path_prefix');
  const problem = prefix === undefined ? null : memoryPrefixProblem(prefix);
  if (problem) throw new ValidationError(`path_prefix ${problem}`, { path: 'query.path_prefix' });
  return prefix;
}
const OptionalUuidQuery = (c: Context<AppEnv>, name: string) => {
  const value = optionalQuery(c, name);
  if (value !== undefined && !isOurId(value)) throw new ValidationError(`${name} must be an id`, { path: `query.${name}` });
  return value;
};

/**
 * `client.beta.memoryStores` with `.memories` and `.memoryVersions`: scopes as the native memory
 * routes (reads `memory:read`, changes `memory:write`); every change deduplicated like the SDK's
 * other writes, so a retried request writes one version.
 */
export function compatMemoryStoreRoutes() {
  const base = '/memory_stores';
  return new Hono<AppEnv>()
    .post(base, needs('memory:write'), async (c) => {
      const body = await jsonBody(c, CmaCreateMemoryStore);
      return deduped(c, (ctx) => createCompatMemoryStore(ctx, body));
    })
    .get(base, needs('memory:read'), async (c) =>
      c.json(await listCompatMemoryStores(c.var.ctx, { ...paging(c), includeArchived: flag(c, 'include_archived') })),
    )
    .get(`${base}/:storeId`, needs('memory:read'), async (c) => c.json(await getCompatMemoryStore(c.var.ctx, storeOf(c))))
    .post(`${base}/:storeId`, needs('memory:write'), async (c) => {
      const storeId = storeOf(c);
      const body = await jsonBody(c, CmaUpdateMemoryStore);
      return deduped(c, (ctx) => updateCompatMemoryStore(ctx, { storeId, ...body }));
    })
    .delete(`${base}/:storeId`, needs('memory:write'), async (c) => {
      const storeId = storeOf(c);
      return deduped(c, (ctx) => deleteCompatMemoryStore(ctx, storeId));
    })
    .post(`${base}/:storeId/archive`, needs('memory:write'), async (c) => {
      const storeId = storeOf(c);
      return deduped(c, (ctx) => archiveCompatMemoryStore(ctx, storeId));
    })
    .post(`${base}/:storeId/memories`, needs('memory:write'), async (c) => {
      const storeId = storeOf(c);
      const view = viewOf(c, 'basic');
      const body = await jsonBody(c, CmaCreateMemory);
      return deduped(c, (ctx) => createCompatMemory(ctx, { storeId, ...body, view }));
    })
    .get(`${base}/:storeId/memories`, needs('memory:read'), async (c) => {
      const depth = optionalQuery(c, 'depth');
      return c.json(
        await listCompatMemories(c.var.ctx, {
          storeId: storeOf(c),
          ...paging(c),
          pathPrefix: pathPrefixOf(c),
          depth: depth === undefined ? undefined : parsed(Depth, depth, 'query.depth'),
          view: viewOf(c, 'basic'),
        }),
      );
    })
    .get(`${base}/:storeId/memories/:memoryId`, needs('memory:read'), async (c) =>
      c.json(await getCompatMemory(c.var.ctx, { storeId: storeOf(c), memoryId: idParam(c, 'memoryId', 'memory'), view: viewOf(c, 'full') })),
    )
    .post(`${base}/:storeId/memories/:memoryId`, needs('memory:write'), async (c) => {
      const ids = { storeId: storeOf(c), memoryId: idParam(c, 'memoryId', 'memory') };
      const view = viewOf(c, 'basic');
      const body = await jsonBody(c, CmaUpdateMemory);
      return deduped(c, (ctx) => updateCompatMemory(ctx, { ...ids, ...body, view }));
    })
    .delete(`${base}/:storeId/memories/:memoryId`, needs('memory:write'), async (c) => {
      const ids = { storeId: storeOf(c), memoryId: idParam(c, 'memoryId', 'memory') };
      const expected = optionalQuery(c, 'expected_content_sha256');
      const expectedContentSha256 = expected === undefined ? undefined : parsed(Sha256, expected, 'query.expected_content_sha256');
      return deduped(c, (ctx) => deleteCompatMemory(ctx, { ...ids, expectedContentSha256 }));
    })
    .get(`${base}/:storeId/memory_versions`, needs('memory:read'), async (c) => {
      const operation = optionalQuery(c, 'operation');
      return c.json(
        await listCompatMemoryVersions(c.var.ctx, {
          storeId: storeOf(c),
          ...paging(c),
          memoryId: OptionalUuidQuery(c, 'memory_id'),
          sessionId: OptionalUuidQuery(c, 'session_id'),
          operation: operation === undefined ? undefined : parsed(Operation, operation, 'query.operation'),
          view: viewOf(c, 'basic'),
        }),
      );
    })
    .get(`${base}/:storeId/memory_versions/:versionId`, needs('memory:read'), async (c) =>
      c.json(await getCompatMemoryVersion(c.var.ctx, { storeId: storeOf(c), versionId: idParam(c, 'versionId', 'memory version'), view: viewOf(c, 'full') })),
    )
    .post(`${base}/:storeId/memory_versions/:versionId/redact`, needs('memory:write'), async (c) => {
      const ids = { storeId: storeOf(c), versionId: idParam(c, 'versionId', 'memory version') };
      return deduped(c, (ctx) => redactCompatMemoryVersion(ctx, ids));
    });
}
