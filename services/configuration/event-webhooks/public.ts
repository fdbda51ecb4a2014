import type * as v from 'valibot';
import type { PublicEventWebhookShape } from '../../../domain/public-shapes/event-webhooks.ts';
import type { eventWebhooks } from '../../../db/schema/index.ts';
import { encodeEventCursor } from '../../../domain/event-cursor.ts';

export type EventWebhookRow = typeof eventWebhooks.$inferSelect;

/** The AAD binding a sealed signing secret to its webhook (services/kernel/credentials/keyring.ts). */
export const webhookCredentialAad = (webhookId: string) => `event_webhook:${webhookId}`;

/** Channel of the change hint the worker's webhook dispatcher listens to; payload = webhook id. */
export const EVENT_WEBHOOKS_CHANNEL = 'svc_event_webhooks';

/**
 * The public webhook (spec 1 "Event webhook"). The signing secret is write-only: only its
 * fingerprint and version show. `cursor` is the event feed's cursor format at the delivered
 * position, so a receiver can switch to the SSE feed from exactly there.
 */
export type PublicEventWebhook = v.InferOutput<typeof PublicEventWebhookShape>;

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toEventWebhookResponse(row: EventWebhookRow, options: { pendingEvents: number; now: Date }): PublicEventWebhook {
  const previousLive = row.previousCredentialCiphertext !== null && row.previousCredentialExpiresAt !== null && row.previousCredentialExpiresAt > options.now;
  return {
    id: row.id,
    organizationId: row.organizationId,
    projectId: row.projectId,
    displayName: row.displayName,
    endpointUrl: row.endpointUrl,
    eventKinds: row.eventKinds,
    includeMessageContent: row.includeMessageContent,
    enabled: row.enabled,
    status: row.status,
    disabledReason: row.disabledReason,
    credentialConfigured: row.credentialCiphertext !== null,
    credentialFingerprint: row.credentialFingerprint,
    credentialVersion: row.credentialVersion,
    previousCredentialExpiresAt: previousLive ? iso(row.previousCredentialExpiresAt) : null,
    deliveredPosition: row.deliveredPosition.toString(),
    cursor: encodeEventCursor(row.projectId, row.deliveredPosition),
    pendingEvents: options.pendingEvents,
    consecutiveFailures: row.consecutiveFailures,
    nextAttemptAt: iso(row.nextAttemptAt),
    lastAttemptAt: iso(row.lastAttemptAt),
    lastSuccessAt: iso(row.lastSuccessAt),
    lastFailureAt: iso(row.lastFailureAt),
    lastResponseStatus: row.lastResponseStatus,
    lastErrorCode: row.lastErrorCode,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
