import { compileEventKindFilter, matchesEventKind } from '../../../../domain/webhooks/event-filter.ts';
import { MAX_BATCH_EVENTS, SOFT_BATCH_BYTES } from '../../../../domain/webhooks/limits.ts';
import type { Executor } from '../../../../db/client.ts';
import { toPublicEvent, type ProductEventRow, type PublicProductEvent } from '../../../kernel/events/index.ts';
import { readProductEvents } from '../../../kernel/events/index.ts';

/** Rows read per page while looking for the next batch (the first page just fits a full batch), and the most scanned in one step. */
const FIRST_PAGE_SIZE = MAX_BATCH_EVENTS + 1;
const PAGE_SIZE = 500;
const MAX_SCANNED = 2_000;

export type BatchPlan =
  /** Nothing committed after the cursor. */
  | { kind: 'empty' }
  /** Only filtered-out events up to `throughPosition`: advance without a request. */
  | { kind: 'filtered'; throughPosition: bigint }
  /** The next batch: `(fromPosition, throughPosition]`, filtered events in the range included; `events` are the kept ones. */
  | { kind: 'batch'; fromPosition: bigint; throughPosition: bigint; events: PublicProductEvent[] };

/**
 * Finds the next batch after `afterPosition` (spec 3 rules 1 and 6): in position order, at most
 * 100 kept events and about 256 KB of them, a larger single event alone. Filtered-out events are
 * covered by the range without being sent, so positions stay contiguous for the receiver.
 */
export async function planWebhookBatch(
  db: Executor,
  input: { projectId: string; afterPosition: bigint; eventKinds: string[] | null; includeMessageContent: boolean },
): Promise<BatchPlan> {
  const filter = compileEventKindFilter(input.eventKinds);
  let cursor = input.afterPosition;
  const kept: PublicProductEvent[] = [];
  let bytes = 0;
  let scanned = 0;
  while (scanned < MAX_SCANNED) {
    const limit = scanned === 0 ? FIRST_PAGE_SIZE : PAGE_SIZE;
    const rows = await readProductEvents({ db, input: { projectId: input.projectId, afterPosition: cursor, limit } });
    for (const row of rows) {
      if (matchesEventKind(filter, row.kind)) {
        const event = toPublicEvent(row, { includeMessage: input.includeMessageContent });
        const size = Buffer.byteLength(JSON.stringify(event), 'utf8');
        if (kept.length > 0 && (kept.length === MAX_BATCH_EVENTS || bytes + size > SOFT_BATCH_BYTES)) {
          return { kind: 'batch', fromPosition: input.afterPosition, throughPosition: cursor, events: kept };
        }
        kept.push(event);
        bytes += size;
      }
      cursor = row.projectPosition;
    }
    scanned += rows.length;
    if (rows.length < limit) break;
  }
  if (cursor === input.afterPosition) return { kind: 'empty' };
  if (kept.length === 0) return { kind: 'filtered', throughPosition: cursor };
  return { kind: 'batch', fromPosition: input.afterPosition, throughPosition: cursor, events: kept };
}

/** The kept events of a batch range, in position order, as the receiver sees them. */
export function batchEvents(rows: ProductEventRow[], input: { eventKinds: string[] | null; includeMessageContent: boolean }) {
  const filter = compileEventKindFilter(input.eventKinds);
  return rows.filter((row) => matchesEventKind(filter, row.kind)).map((row) => toPublicEvent(row, { includeMessage: input.includeMessageContent }));
}
