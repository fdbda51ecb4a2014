import * as v from 'valibot';
import { Id, Timestamp } from './common.ts';

/**
 * The public product event (spec 3 "Product events"): the SSE feed's `data`, a webhook batch's
 * items and the session debug list. `projectPosition` is a decimal string (positions are 64-bit);
 * `message` appears only where the consumer opted in to message content (webhooks).
 */
export const PublicProductEventShape = v.strictObject({
  id: Id,
  organizationId: Id,
  projectId: Id,
  aggregateType: v.string(),
  aggregateId: Id,
  aggregateSequence: v.pipe(v.number(), v.integer(), v.minValue(1)),
  projectPosition: v.pipe(v.string(), v.regex(/^\d+$/)),
  kind: v.string(),
  publicPayload: v.record(v.string(), v.unknown()),
  occurredAt: Timestamp,
  message: v.optional(v.record(v.string(), v.unknown())),
});
