import type { TurnFileInput } from '../../../domain/attachments/file-input.ts';
import { assertSessionIdle } from './assert-session-idle.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { SessionRow } from './load-session.ts';
import { PUBLIC_STORAGE_ONLY, uploadAttachments, type UploadedAttachments } from '../attachments/index.ts';

/**
 * The step of a follow-up or resume that runs before its transaction: a session whose latest run
 * is unsettled is refused before any byte travels (409, the same answer the transaction would
 * give, which still re-checks under the row lock), then the files are checked against the
 * session's pinned version and uploaded. Reads only, no lock: the session row is read as it is.
 */
export async function uploadTurnFiles(
  ctx: ServiceContext,
  deps: RunStarterDeps,
  input: { session: SessionRow; files: readonly TurnFileInput[]; mayWait?: boolean },
): Promise<UploadedAttachments> {
  const { session } = input;
  // A turn that may wait as a pending turn (`ifBusy: enqueue | interrupt`) uploads either way.
  if (!input.mayWait) await assertSessionIdle(ctx, session);
  return uploadAttachments(ctx, {
    files: input.files,
    organizationId: session.organizationId,
    projectId: session.projectId,
    agentVersionId: session.agentVersionId,
    keyring: deps.keyring,
    storagePolicy: deps.storagePolicy ?? PUBLIC_STORAGE_ONLY,
  });
}
