import { and, asc, eq, gt, lte, min, sql } from 'drizzle-orm';
import { eventWebhooks, productEvents, projects } from '../../../db/schema/index.ts';
import { effectiveRetention, type RetentionWindows } from '../../../domain/retention.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';

export type EventPurgeResult = {
  deleted: number;
  /** True when some project's batch was full: call again. */
  more: boolean;
};

/**
 * Deletes product events older than each project's events window
 * (docs/decisions/event-retention-and-webhooks.md), oldest first, at most `batchSize` per project and call, each project's in one
 * short transaction (one ranged delete on the position index, one update of the project row).
 *
 * What is kept is always a suffix of the project's log: the purge stops at the first event
 * still inside the window, and at the cursor of every enabled webhook (events an enabled
 * webhook has not delivered are never dropped, spec 3 "Webhook delivery" rule 6: a webhook that
 * fails for longer than the window holds the log until it recovers or is disabled; a disabled one
 * holds nothing). The project remembers the position it purged through, so a feed cursor below it
 * is refused (`410 cursor_expired`) instead of skipping events silently. The webhook batches'
 * delivery state lives on the webhook row and names positions in this log, so these events are
 * also the webhook delivery records this window bounds.
 */
export async function purgeExpiredEvents(ctx: ServiceContext, input: { installation: RetentionWindows; batchSize: number }): Promise<EventPurgeResult> {
  const result: EventPurgeResult = { deleted: 0, more: false };
  const now = ctx.clock.now();
  const projectRows = await ctx.db.select().from(projects).orderBy(asc(projects.id));
  for (const project of projectRows) {
    const window = effectiveRetention(project, input.installation).eventsMinutes;
    if (window === null) continue;
    const cutoff = new Date(now.getTime() - window * 60_000);
    const [hold] = await ctx.db
      .select({ position: min(eventWebhooks.deliveredPosition) })
      .from(eventWebhooks)
      .where(and(eq(eventWebhooks.projectId, project.id), eq(eventWebhooks.enabled, true)));
    const rows = await ctx.db
      .select({ position: productEvents.projectPosition, occurredAt: productEvents.occurredAt })
      .from(productEvents)
      .where(and(eq(productEvents.projectId, project.id), gt(productEvents.projectPosition, project.eventsPurgedThroughPosition)))
      .orderBy(asc(productEvents.projectPosition))
      .limit(input.batchSize);
    let through: bigint | null = null;
    for (const row of rows) {
      if (row.occurredAt >= cutoff) break;
      if (hold?.position !== null && hold?.position !== undefined && row.position > hold.position) break;
      through = row.position;
    }
    if (through === null) continue;
    const purgedThrough = through;
    const deleted = await withTransaction(ctx, async (tx) => {
      // Recorded first, with the delete in the same commit: a reader sees both or neither.
      await tx.db
        .update(projects)
        .set({ eventsPurgedThroughPosition: sql`greatest(${projects.eventsPurgedThroughPosition}, ${purgedThrough})` })
        .where(eq(projects.id, project.id));
      const gone = await tx.db
        .delete(productEvents)
        .where(
          and(
            eq(productEvents.projectId, project.id),
            gt(productEvents.projectPosition, project.eventsPurgedThroughPosition),
            lte(productEvents.projectPosition, purgedThrough),
          ),
        )
        .returning({ position: productEvents.projectPosition });
      return gone.length;
    });
    result.deleted += deleted;
    if (rows.length === input.batchSize && rows[rows.length - 1]!.position === through) result.more = true;
  }
  if (result.deleted > 0) ctx.logger.info('retention: expired product events deleted', { deleted: result.deleted, more: result.more });
  return result;
}
