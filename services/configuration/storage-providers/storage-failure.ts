import { ConflictError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { blockedEndpointReason } from './s3-client.ts';

/**
 * What a caller is told when the object store fails under its files. Whoever uploads, attaches or
 * downloads files may not read the connection itself (that takes `agent:read`), so these texts
 * name nothing of it: no key, bucket, endpoint, prefix, nor why the address policy refused it.
 */
const TEXTS = {
  storeFiles: "The organization's storage connection cannot store files right now; nothing was recorded",
  readFile: 'The file cannot be read from storage right now',
  readManifest: 'The workspace backup is unavailable: its manifest cannot be read from storage',
  readArchive: 'The workspace backup is unavailable: its archive cannot be read from storage',
} as const;

/**
 * The 409 for a failed storage request on a caller's files: the fixed text of `what`, while the
 * log line (for whoever runs the connection) names the connection, the error and any address
 * policy refusal. The one place these texts are made.
 */
export function storageFailure(
  ctx: ServiceContext,
  input: { what: keyof typeof TEXTS; providerId: string; error: unknown; logFields?: Record<string, unknown> },
): ConflictError {
  ctx.logger.warn('storage request failed', {
    what: input.what,
    providerId: input.providerId,
    errorName: (input.error as Error | undefined)?.name,
    blockedEndpoint: blockedEndpointReason(input.error),
    requestId: ctx.requestId,
    ...input.logFields,
  });
  return new ConflictError(TEXTS[input.what]);
}
