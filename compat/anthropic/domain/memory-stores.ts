import * as v from 'valibot';
import { CreateMemoryInput, CreateMemoryStoreInput, UpdateMemoryInput, UpdateMemoryStoreInput } from '../../../domain/memory/index.ts';
import type { PublicMemory, PublicMemoryStore, PublicMemoryVersion } from '../../../services/configuration/memory-stores/index.ts';

/** The SDK's memory store, memory and version shapes (`client.beta.memoryStores`), from ours. */
export type CmaMemoryStore = ReturnType<typeof renderMemoryStore>;

export const renderMemoryStore = (store: PublicMemoryStore) => ({
  id: store.id,
  type: 'memory_store' as const,
  name: store.name,
  description: store.description,
  metadata: store.metadata,
  archived_at: store.archivedAt,
  created_at: store.createdAt,
  updated_at: store.updatedAt,
});

export const renderMemory = (memory: PublicMemory) => ({
  id: memory.id,
  type: 'memory' as const,
  memory_store_id: memory.storeId,
  path: memory.path,
  content: memory.content,
  content_sha256: memory.contentSha256,
  content_size_bytes: memory.contentSizeBytes,
  memory_version_id: memory.versionId,
  created_at: memory.createdAt,
  updated_at: memory.updatedAt,
});

/** Who wrote a version, as the SDK's actors: an API key's principal or a session's run. */
const actorOf = (author: PublicMemoryVersion['writtenBy']) =>
  author.type === 'session'
    ? { type: 'session_actor' as const, session_id: author.sessionId }
    : author.apiKeyId
      ? { type: 'api_actor' as const, api_key_id: author.apiKeyId }
      : { type: 'user_actor' as const, user_id: author.principalId };

export const renderMemoryVersion = (version: PublicMemoryVersion) => ({
  id: version.id,
  type: 'memory_version' as const,
  memory_id: version.memoryId,
  memory_store_id: version.storeId,
  operation: version.operation,
  path: version.path,
  content: version.content,
  content_sha256: version.contentSha256,
  content_size_bytes: version.contentSizeBytes,
  created_by: actorOf(version.writtenBy),
  redacted_at: version.redactedAt,
  ...(version.redactedBy ? { redacted_by: actorOf(version.redactedBy) } : {}),
  created_at: version.createdAt,
});

const nullable = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema));

/** `memories.create` as the core's body: a null `content` is an empty memory. */
export const CmaCreateMemory = v.pipe(
  v.strictObject({ path: v.unknown(), content: v.unknown() }),
  v.transform(({ path, content }) => ({ path, content: content ?? '' })),
  CreateMemoryInput,
);
/** `memories.update` as the core's body: absent or null fields stay as they are; the precondition's hash is `content_sha256`. */
export const CmaUpdateMemory = v.pipe(
  v.strictObject({
    path: nullable(v.unknown()),
    content: nullable(v.unknown()),
    precondition: v.optional(v.strictObject({ type: v.unknown(), content_sha256: v.optional(v.unknown()) })),
  }),
  v.transform(({ path, content, precondition }) => ({
    ...(path != null ? { path } : {}),
    ...(content != null ? { content } : {}),
    ...(precondition && precondition.content_sha256 !== undefined
      ? { precondition: { type: precondition.type, contentSha256: precondition.content_sha256 } }
      : {}),
  })),
  UpdateMemoryInput,
);
/** `memoryStores.update`: a null field stays as it is; a metadata key set to null is removed. The core's rules after that. */
export const CmaUpdateMemoryStore = v.pipe(
  v.record(v.string(), v.unknown()),
  v.transform((body) =>
    Object.fromEntries(Object.entries(body).filter(([key, value]) => !(value === null && ['name', 'description', 'metadata'].includes(key)))),
  ),
  UpdateMemoryStoreInput,
);
/** `memoryStores.create`: the core's own body (the same field names). */
export const CmaCreateMemoryStore = CreateMemoryStoreInput;

/** The SDK's error types for our memory conflicts (`error.type`), with the fields its error objects carry. */
export function memoryErrorType(details: Record<string, unknown> | undefined): { type: string; fields: Record<string, unknown> } | null {
  if (details?.reason === 'memory_precondition_failed') return { type: 'memory_precondition_failed_error', fields: {} };
  if (details?.reason === 'memory_path_conflict') {
    return { type: 'memory_path_conflict_error', fields: { conflicting_memory_id: details.conflictingMemoryId, conflicting_path: details.conflictingPath } };
  }
  return null;
}
