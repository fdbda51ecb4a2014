import type * as v from 'valibot';
import type { PublicSandboxCommandShape, PublicSandboxShape, PublicWorkspaceBackupShape } from '../../../domain/public-shapes/sessions.ts';
import type { sandboxCommands, sandboxes, workspaceBackups } from '../../../db/schema/index.ts';

/** Session debug records (spec 1 "Session, run and attachments": `sandboxes`, `workspaceBackups`, `sandboxCommands`). */
export type PublicSandbox = v.InferOutput<typeof PublicSandboxShape>;
export type PublicWorkspaceBackup = v.InferOutput<typeof PublicWorkspaceBackupShape>;
export type PublicSandboxCommand = v.InferOutput<typeof PublicSandboxCommandShape>;

export const toSandboxResponse = (row: typeof sandboxes.$inferSelect): PublicSandbox => ({
  id: row.id,
  workspaceSessionId: row.workspaceSessionId,
  providerId: row.providerId,
  snapshotId: row.snapshotId,
  network: row.network,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt.toISOString(),
});

export const toWorkspaceBackupResponse = (row: typeof workspaceBackups.$inferSelect): PublicWorkspaceBackup => ({
  id: row.id,
  workspaceSessionId: row.workspaceSessionId,
  runId: row.runId,
  generation: row.generation,
  storageProviderId: row.storageProviderId,
  fileCount: row.fileCount,
  totalBytes: row.totalBytes,
  archiveSizeBytes: row.archiveSizeBytes,
  archiveSha256: row.archiveSha256,
  createdAt: row.createdAt.toISOString(),
});

/** Bounded and redacted: the kept tool answer (`result_value`) never appears here. */
export const toSandboxCommandResponse = (row: typeof sandboxCommands.$inferSelect): PublicSandboxCommand => ({
  id: row.id,
  sandboxId: row.sandboxId,
  runId: row.runId,
  toolCallId: row.toolCallId,
  toolName: row.toolName,
  safeCommand: row.safeCommand,
  safeResult: row.safeResult,
  startedAt: row.startedAt.toISOString(),
  completedAt: row.completedAt?.toISOString() ?? null,
});
