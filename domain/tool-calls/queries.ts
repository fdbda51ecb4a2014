import * as v from 'valibot';
import { ListLimit } from '../pagination.ts';

/** `GET /tool-calls` and `GET /approvals` list one run: `runId` is required, paging as everywhere. */
export const RunListQuery = v.object({
  runId: v.pipe(v.string('runId is required'), v.uuid('runId must be a UUID')),
  limit: ListLimit,
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512, 'cursor is too long'))),
});
