import { and, asc, eq, gt } from 'drizzle-orm';
import { messages } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import type { Page } from '../../../domain/pagination.ts';
import { decodeSequenceCursor, encodeSequenceCursor } from '../../../domain/sessions/cursors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findRun } from './load.ts';
import { toMessageResponse, type PublicMessage } from './public.ts';

/**
 * A run's public messages in thread order (`GET /runs/{id}/messages`): its user input and what
 * the runtime appended for it, redacted like the session transcript. Keyset paging by
 * `sequence`, which never changes once a message is written.
 */
export async function listRunMessages({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; limit: number; cursor?: string | undefined };
}): Promise<Page<PublicMessage>> {
  const run = await findRun(ctx, input.runId);
  const after = input.cursor === undefined ? null : decodeSequenceCursor(input.cursor);
  if (input.cursor !== undefined && after === null) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  const rows = await ctx.db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.runId, run.id),
        eq(messages.threadId, run.threadId),
        eq(messages.projectId, run.projectId),
        after === null ? undefined : gt(messages.sequence, after),
      ),
    )
    .orderBy(asc(messages.sequence))
    .limit(input.limit + 1);
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { data: page.map(toMessageResponse), pageInfo: { nextCursor: rows.length > input.limit && last ? encodeSequenceCursor(last.sequence) : null } };
}
