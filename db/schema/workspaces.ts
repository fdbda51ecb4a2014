import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sandboxProviders, storageProviders } from './connections.ts';
import { createdAt, id, organizationId, projectId, timestampColumn } from './columns.ts';
import { sessions } from './sessions.ts';

/**
 * A session's workspace sandbox, created lazily at its first run that needs one and reused by
 * every later run; delegated children use their workspace owner's. The workspace itself lives on
 * the worker (and in backups); the row records where and under which policy.
 */
export const sandboxes = pgTable(
  'sandboxes',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    /** The root session that owns the workspace. */
    workspaceSessionId: uuid('workspace_session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => sandboxProviders.id),
    snapshotId: uuid('snapshot_id').notNull(),
    network: text('network').$type<'none' | 'restricted'>().notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestampColumn('last_used_at').notNull().defaultNow(),
  },
  (table) => [uniqueIndex('sandboxes_workspace_session_key').on(table.workspaceSessionId)],
);

/**
 * One sandbox tool call's command (session debug `sandboxCommands`): what ran and a bounded,
 * redacted result. Keyed by tool call, so a retried activity finds the finished command instead
 * of running it twice.
 */
export const sandboxCommands = pgTable(
  'sandbox_commands',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    sandboxId: uuid('sandbox_id')
      .notNull()
      .references(() => sandboxes.id, { onDelete: 'cascade' }),
    runId: uuid('run_id').notNull(),
    toolCallId: uuid('tool_call_id').notNull(),
    toolName: text('tool_name').notNull(),
    safeCommand: jsonb('safe_command').$type<Record<string, unknown>>().notNull(),
    safeResult: jsonb('safe_result').$type<Record<string, unknown> | null>(),
    /** The tool's full answer (or failure message), kept so a retried step does not run the command twice; never shown. */
    resultValue: jsonb('result_value').$type<Record<string, unknown> | null>(),
    failure: text('failure'),
    startedAt: createdAt(),
    completedAt: timestampColumn('completed_at'),
  },
  (table) => [uniqueIndex('sandbox_commands_tool_call_key').on(table.toolCallId), index('sandbox_commands_sandbox_idx').on(table.sandboxId, table.startedAt)],
);

/**
 * Files attached to a session or turn. The bytes live only in object storage, bound to the
 * connection they were first written to; the row holds safe metadata and the server-computed
 * SHA-256 the runtime verifies before copying them into the workspace.
 */
export const attachments = pgTable(
  'attachments',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    runId: uuid('run_id').notNull(),
    position: integer('position').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    fileClass: text('file_class').$type<'text' | 'binary'>().notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    storageProviderId: uuid('storage_provider_id')
      .notNull()
      .references(() => storageProviders.id),
    objectKey: text('object_key').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('attachments_run_position_key').on(table.runId, table.position),
    index('attachments_session_idx').on(table.sessionId, table.createdAt),
    // Whether any attachment still names a content-addressed object (retention, the orphaned-upload sweep).
    index('attachments_object_key_idx').on(table.projectId, table.objectKey),
  ],
);

/**
 * Standalone uploads (`POST /uploads`): a file stored before any turn names it, referenced later
 * by id in a turn's `files` (`{uploadId}`). The bytes live in object storage under the project's
 * `run-files/<sha256>` like a turn's attachments (shared when equal); the row holds only safe
 * metadata. The orphaned-upload sweep counts a row that has not expired as a reference.
 */
export const uploads = pgTable(
  'uploads',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    fileClass: text('file_class').$type<'text' | 'binary'>().notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    storageProviderId: uuid('storage_provider_id')
      .notNull()
      .references(() => storageProviders.id),
    objectKey: text('object_key').notNull(),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
    /** After this the upload is gone for every read and turn (and its bytes are the sweep's). */
    expiresAt: timestampColumn('expires_at'),
  },
  (table) => [index('uploads_project_created_idx').on(table.projectId, table.createdAt), index('uploads_object_key_idx').on(table.projectId, table.objectKey)],
);

/**
 * Workspace backups: after each run the workspace is archived (tar) with a manifest, both in the
 * thread's storage connection (the one its first backup used). Only completed rows exist; the
 * latest generation is what `GET .../files` serves, after checking length and SHA-256.
 */
export const workspaceBackups = pgTable(
  'workspace_backups',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    workspaceSessionId: uuid('workspace_session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    runId: uuid('run_id').notNull(),
    generation: integer('generation').notNull(),
    storageProviderId: uuid('storage_provider_id')
      .notNull()
      .references(() => storageProviders.id),
    archiveKey: text('archive_key').notNull(),
    archiveSizeBytes: bigint('archive_size_bytes', { mode: 'number' }).notNull(),
    archiveSha256: text('archive_sha256').notNull(),
    manifestKey: text('manifest_key').notNull(),
    manifestSha256: text('manifest_sha256').notNull(),
    fileCount: integer('file_count').notNull(),
    totalBytes: bigint('total_bytes', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('workspace_backups_generation_key').on(table.workspaceSessionId, table.generation),
    // Per workspace: a fork's first backup is a copy of its source's, made after the same run.
    uniqueIndex('workspace_backups_workspace_run_key').on(table.workspaceSessionId, table.runId),
  ],
);
