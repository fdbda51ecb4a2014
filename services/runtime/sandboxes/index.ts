// The verbs and read models of runtime/sandboxes/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { backupKeys, latestWorkspaceBackup } from './backups.ts';
export type { WorkspaceBackupRow } from './backups.ts';
export { beginSandboxCommand, completeSandboxCommand } from './commands.ts';
export { ensureRunSandbox, workspaceOwnerOf } from './ensure.ts';
export type { RunSandbox } from './ensure.ts';
export { loadRunWorkspaceInputs } from './load-workspace-inputs.ts';
export type { RunWorkspaceInputs } from './load-workspace-inputs.ts';
export { planWorkspaceBackup } from './plan-backup.ts';
export { toSandboxCommandResponse, toSandboxResponse, toWorkspaceBackupResponse } from './public.ts';
export { recordWorkspaceBackup } from './record-backup.ts';
