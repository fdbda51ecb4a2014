import * as v from 'valibot';
import { Id, page, Timestamp } from './common.ts';

/** Memory stores, their memories and versions (docs/memory.md). */
const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));
const Size = v.pipe(v.number(), v.integer(), v.minValue(0));
const Operation = v.picklist(['created', 'modified', 'deleted']);

export const PublicMemoryStoreShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  name: v.string(),
  description: v.string(),
  metadata: v.record(v.string(), v.string()),
  mountPath: v.string(),
  memoryCount: Size,
  sizeBytes: Size,
  versionCount: Size,
  archivedAt: v.nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const MemoryStorePageShape = page(PublicMemoryStoreShape);

const memoryFields = {
  id: Id,
  storeId: Id,
  path: v.string(),
  content: v.nullable(v.string()),
  contentSha256: Sha256,
  contentSizeBytes: Size,
  versionId: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
export const PublicMemoryShape = v.strictObject(memoryFields);

/** A list item: a memory, or (with `depth`) a directory standing for the memories below it. */
export const MemoryListPageShape = v.strictObject({
  data: v.array(
    v.variant('type', [v.strictObject({ type: v.literal('memory'), ...memoryFields }), v.strictObject({ type: v.literal('prefix'), path: v.string() })]),
  ),
  pageInfo: v.strictObject({ nextCursor: v.nullable(v.string()) }),
});

export const MemoryAuthorShape = v.variant('type', [
  v.strictObject({ type: v.literal('principal'), principalId: Id, apiKeyId: v.nullable(Id) }),
  v.strictObject({ type: v.literal('session'), sessionId: Id, runId: Id }),
]);

export const PublicMemoryVersionShape = v.strictObject({
  id: Id,
  storeId: Id,
  memoryId: Id,
  operation: Operation,
  path: v.nullable(v.string()),
  content: v.nullable(v.string()),
  contentSha256: v.nullable(Sha256),
  contentSizeBytes: v.nullable(Size),
  writtenBy: MemoryAuthorShape,
  redactedAt: v.nullable(Timestamp),
  redactedBy: v.nullable(MemoryAuthorShape),
  createdAt: Timestamp,
});
export const MemoryVersionPageShape = page(PublicMemoryVersionShape);

export const MemoryDeletedShape = v.strictObject({ id: Id, deleted: v.literal(true) });
