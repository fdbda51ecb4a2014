// The verbs and read models of kernel/events/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { PRODUCT_EVENTS_CHANNEL, ProductEventDraft, appendProductEvent, appendProductEvents, appendProductEventsReading, holdProductEvents } from './append.ts';
export type { AppendProductEventInput } from './append.ts';
export { findEventAbout, findSessionEvent, latestSessionEvent, toolCallCreationEvents } from './find.ts';
export { toPublicEvent } from './public-event.ts';
export type { ProductEventRow, PublicProductEvent } from './public-event.ts';
export { eventsPurgedThrough, latestProjectPosition, latestProjectPositions, readProductEvents, readSessionEvents, readSessionEventsPage } from './read.ts';
