// The verbs and read models of configuration/event-webhooks/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createEventWebhook } from './create.ts';
export { deleteEventWebhook } from './delete.ts';
export { prepareWebhookAttempt } from './delivery/prepare-attempt.ts';
export type { WebhookAttempt } from './delivery/prepare-attempt.ts';
export { recordWebhookAttempt } from './delivery/record-attempt.ts';
export type { AttemptResult } from './delivery/record-attempt.ts';
export { getEventWebhook, listEventWebhooks } from './list.ts';
export { EVENT_WEBHOOKS_CHANNEL, webhookCredentialAad } from './public.ts';
export { rotateEventWebhookCredential } from './rotate-credential.ts';
export { updateEventWebhook } from './update.ts';
