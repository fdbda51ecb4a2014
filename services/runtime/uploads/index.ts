// The verbs and read models of runtime/uploads/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createUpload } from './create.ts';
export type { UploadDeps } from './create.ts';
export { deleteUpload } from './delete.ts';
export { findLiveUploads, findUpload, getUpload, listUploads, readUploadBytes } from './read.ts';
