import { and, eq, sql } from 'drizzle-orm';
import { runs } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { RunRow } from './public.ts';

/** A run of the actor's project, or 404 (a deleted session's runs are gone with it). `forUpdate` locks the row to the end of the transaction. */
export async function findRun(ctx: ServiceContext, runId: string, options: { forUpdate?: boolean } = {}): Promise<RunRow> {
  const actor = requireActor(ctx);
  const query = ctx.db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.id, runId),
        eq(runs.projectId, actor.projectId),
        sql`not exists (select 1 from sessions s where s.id = ${runs.sessionId} and s.deleted_at is not null)`,
      ),
    );
  const [run] = options.forUpdate ? await query.for('update') : await query;
  if (!run) throw new NotFoundError('No run with that id in this project');
  return run;
}
