import { ValidationError } from '../../../domain/errors.ts';

/** Metadata after a patch: a `null` value deletes its key; at most 16 pairs. */
export function patchedMetadata(base: Record<string, string>, patch: Record<string, string | null> | null | undefined): Record<string, string> {
  const next = { ...base };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  if (Object.keys(next).length > 16) throw new ValidationError('metadata: holds at most 16 pairs', { path: 'body.metadata' });
  return next;
}
