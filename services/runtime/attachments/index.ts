// The verbs and read models of runtime/attachments/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { findTurnUploads, uploadIsLive } from './find-uploads.ts';
export type { UploadRow } from './find-uploads.ts';
export { readStoredFile } from './read-object.ts';
export { attachmentsOfRuns, findAttachment } from './read.ts';
export {
  PUBLIC_STORAGE_ONLY,
  RUN_FILES_FOLDER,
  attachmentMetadataOf,
  confirmUploadedAttachments,
  putFileBytes,
  recordAttachments,
  uploadAttachments,
} from './store.ts';
export type { StoredAttachment, UploadedAttachments } from './store.ts';
