// The verbs and read models of operations/configuration-backup/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { assertOwnOrganization } from './authorize.ts';
export { exportConfiguration } from './export.ts';
export { previewRestore } from './preview.ts';
export { restoreConfiguration } from './restore.ts';
export type { RestoreDeps } from './restore.ts';
