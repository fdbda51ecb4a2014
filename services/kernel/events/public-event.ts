import type * as v from 'valibot';
import type { PublicProductEventShape } from '../../../domain/public-shapes/events.ts';
import type { productEvents } from '../../../db/schema/product-events.ts';

/** A stored `product_events` row, as drizzle reads it. */
export type ProductEventRow = typeof productEvents.$inferSelect;

/** The `message` object of `message.created` (spec 3 "Product events"). */
export type PublicEventMessage = Record<string, unknown>;

/**
 * The public product event (spec 3 "Product events"). `projectPosition` is a string because
 * positions are 64-bit; `message` appears only where the consumer opted in to message content.
 */
export type PublicProductEvent = v.InferOutput<typeof PublicProductEventShape>;

/**
 * Maps a stored event to its public shape. Message content is left out unless the consumer asked
 * for it (webhooks with `includeMessageContent`); the SSE feed never includes it.
 */
export function toPublicEvent(row: ProductEventRow, options: { includeMessage: boolean }): PublicProductEvent {
  const event: PublicProductEvent = {
    id: row.id,
    organizationId: row.organizationId,
    projectId: row.projectId,
    aggregateType: row.aggregateType,
    aggregateId: row.aggregateId,
    aggregateSequence: row.aggregateSequence,
    projectPosition: row.projectPosition.toString(),
    kind: row.kind,
    publicPayload: row.publicPayload,
    occurredAt: row.occurredAt.toISOString(),
  };
  if (options.includeMessage && row.message) event.message = row.message;
  return event;
}
