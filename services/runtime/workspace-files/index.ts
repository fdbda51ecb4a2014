// The verbs and read models of runtime/workspace-files/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { extractArchiveFile, verifyArchiveBytes } from './archive-reader.ts';
export { copyBackupForFork } from './copy-backup.ts';
export type { CopiedBackup } from './copy-backup.ts';
export { downloadWorkspaceFile } from './download.ts';
export { listWorkspaceFiles } from './list.ts';
