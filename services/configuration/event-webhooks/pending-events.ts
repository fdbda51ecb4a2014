import { and, count, eq, gt, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { productEvents } from '../../../db/schema/index.ts';
import type { EventWebhookRow } from './public.ts';

/** SQL form of a webhook's kind filter (null = every kind); wildcards compare by prefix. */
export function eventKindCondition(kinds: readonly string[] | null): SQL | undefined {
  if (kinds === null) return undefined;
  const exact = kinds.filter((kind) => !kind.endsWith('.*'));
  const prefixes = kinds.filter((kind) => kind.endsWith('.*')).map((kind) => kind.slice(0, -1));
  return or(
    exact.length > 0 ? inArray(productEvents.kind, exact) : undefined,
    // starts_with, not LIKE: `_` in kind names would be a LIKE wildcard.
    ...prefixes.map((prefix) => sql`starts_with(${productEvents.kind}, ${prefix})`),
  );
}

/** `pendingEvents` (spec 3 rule 10): committed events after the cursor that the filter keeps. */
export async function countPendingEvents(db: Executor, webhook: EventWebhookRow): Promise<number> {
  const [row] = await db
    .select({ pending: count() })
    .from(productEvents)
    .where(
      and(eq(productEvents.projectId, webhook.projectId), gt(productEvents.projectPosition, webhook.deliveredPosition), eventKindCondition(webhook.eventKinds)),
    );
  return row?.pending ?? 0;
}
