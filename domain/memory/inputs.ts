import * as v from 'valibot';
import { ListLimit } from '../pagination.ts';
import { singleLineProblem } from '../skills/text.ts';
import {
  MEMORY_CONTENT_MAX_BYTES,
  MEMORY_STORE_DESCRIPTION_MAX_CHARS,
  MEMORY_STORE_METADATA_KEY_MAX_CHARS,
  MEMORY_STORE_METADATA_MAX_PAIRS,
  MEMORY_STORE_METADATA_VALUE_MAX_CHARS,
  MEMORY_STORE_NAME_MAX_CHARS,
} from './limits.ts';
import { memoryPathProblem, memoryPrefixProblem } from './path.ts';

const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hexadecimal characters (a SHA-256 digest)'));

const StoreName = v.pipe(
  v.string('name must be a string'),
  v.minLength(1, 'name must not be empty'),
  v.maxLength(MEMORY_STORE_NAME_MAX_CHARS, `name must be at most ${MEMORY_STORE_NAME_MAX_CHARS} characters`),
  v.check((value) => singleLineProblem(value) === null, 'name must be one line without control characters'),
);

const StoreDescription = v.pipe(
  v.string('description must be a string'),
  v.maxLength(MEMORY_STORE_DESCRIPTION_MAX_CHARS, `description must be at most ${MEMORY_STORE_DESCRIPTION_MAX_CHARS} characters`),
  v.check((value) => value.isWellFormed(), 'description must be well-formed Unicode'),
);

const MetadataKey = v.pipe(
  v.string(),
  v.minLength(1, 'metadata keys must be 1 to 64 characters'),
  v.maxLength(MEMORY_STORE_METADATA_KEY_MAX_CHARS, `metadata keys must be 1 to ${MEMORY_STORE_METADATA_KEY_MAX_CHARS} characters`),
);
const MetadataValue = v.pipe(
  v.string('metadata values must be strings'),
  v.maxLength(MEMORY_STORE_METADATA_VALUE_MAX_CHARS, `metadata values must be at most ${MEMORY_STORE_METADATA_VALUE_MAX_CHARS} characters`),
);
const maxPairs = (value: Record<string, string>) => Object.keys(value).length <= MEMORY_STORE_METADATA_MAX_PAIRS;
const tooManyPairs = `metadata may hold at most ${MEMORY_STORE_METADATA_MAX_PAIRS} pairs`;

/** `POST /memory-stores`. */
export const CreateMemoryStoreInput = v.strictObject({
  name: StoreName,
  description: v.optional(StoreDescription, ''),
  metadata: v.optional(v.pipe(v.record(MetadataKey, MetadataValue), v.check(maxPairs, tooManyPairs)), {}),
});
export type CreateMemoryStoreInput = v.InferOutput<typeof CreateMemoryStoreInput>;

/**
 * `PATCH /memory-stores/{id}`: what is sent changes. `metadata` is a change set: a key set to a
 * string is added or replaced, to null removed; the result holds at most 16 pairs (checked by
 * the verb against the stored pairs).
 */
export const UpdateMemoryStoreInput = v.strictObject({
  name: v.optional(StoreName),
  description: v.optional(StoreDescription),
  metadata: v.optional(v.record(MetadataKey, v.nullable(MetadataValue))),
});
export type UpdateMemoryStoreInput = v.InferOutput<typeof UpdateMemoryStoreInput>;

const Flag = v.optional(v.picklist(['true', 'false'], 'must be true or false'));

export const ListMemoryStoresQuery = v.object({
  limit: ListLimit,
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512, 'cursor is too long'))),
  includeArchived: Flag,
});

export const MemoryPath = v.pipe(
  v.string('path must be a string'),
  v.check(
    (value) => memoryPathProblem(value) === null,
    (issue) => `path ${memoryPathProblem(issue.input as string)}`,
  ),
);

const utf8Bytes = (value: string) => new TextEncoder().encode(value).length;
export const MemoryContent = v.pipe(
  v.string('content must be a string'),
  v.check((value) => value.isWellFormed(), 'content must be well-formed Unicode (no lone surrogates)'),
  v.check((value) => !value.includes('\u0000'), 'content must not contain U+0000'),
  v.check((value) => utf8Bytes(value) <= MEMORY_CONTENT_MAX_BYTES, `content must be at most ${MEMORY_CONTENT_MAX_BYTES} bytes of UTF-8`),
);

/** `view`: `basic` leaves content out (null); `full` includes it. */
export const MemoryView = v.optional(v.picklist(['basic', 'full'], 'view must be basic or full'));

export const ViewQuery = v.object({ view: MemoryView });

/** `POST /memory-stores/{id}/memories`. */
export const CreateMemoryInput = v.strictObject({ path: MemoryPath, content: MemoryContent });
export type CreateMemoryInput = v.InferOutput<typeof CreateMemoryInput>;

/** A condition on the memory's current content, checked before a change applies. */
export const ContentPrecondition = v.strictObject({ type: v.literal('content_sha256', 'precondition.type must be content_sha256'), contentSha256: Sha256 });

/** `PATCH /memory-stores/{id}/memories/{memoryId}`: new content, a new path (a rename), or both. */
export const UpdateMemoryInput = v.pipe(
  v.strictObject({ path: v.optional(MemoryPath), content: v.optional(MemoryContent), precondition: v.optional(ContentPrecondition) }),
  v.check((value) => value.path !== undefined || value.content !== undefined, 'send content, path or both'),
);
export type UpdateMemoryInput = v.InferOutput<typeof UpdateMemoryInput>;

const Depth = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^\d{1,2}$/, 'depth must be an integer from 0 to 20'),
    v.transform(Number),
    v.maxValue(20, 'depth must be an integer from 0 to 20'),
  ),
);

export const ListMemoriesQuery = v.object({
  limit: ListLimit,
  cursor: v.optional(v.pipe(v.string(), v.maxLength(2_048, 'cursor is too long'))),
  pathPrefix: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (value) => memoryPrefixProblem(value) === null,
        (issue) => `pathPrefix ${memoryPrefixProblem(issue.input as string)}`,
      ),
    ),
  ),
  depth: Depth,
  view: MemoryView,
});

export const DeleteMemoryQuery = v.object({ expectedContentSha256: v.optional(Sha256) });

export const ListMemoryVersionsQuery = v.object({
  limit: ListLimit,
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512, 'cursor is too long'))),
  memoryId: v.optional(v.pipe(v.string(), v.uuid('memoryId must be a UUID'))),
  sessionId: v.optional(v.pipe(v.string(), v.uuid('sessionId must be a UUID'))),
  operation: v.optional(v.picklist(['created', 'modified', 'deleted'], 'operation must be created, modified or deleted')),
  view: MemoryView,
});
