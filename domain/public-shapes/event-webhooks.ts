import * as v from 'valibot';
import { Id, Timestamp } from './common.ts';

/**
 * The public webhook (spec 1 "Event webhook"). The signing secret is write-only: only its
 * fingerprint and version show. `cursor` is the event feed's cursor at the delivered position,
 * so a receiver can switch to the SSE feed from exactly there.
 */
export const PublicEventWebhookShape = v.strictObject({
  id: Id,
  organizationId: Id,
  projectId: Id,
  displayName: v.string(),
  endpointUrl: v.string(),
  eventKinds: v.nullable(v.array(v.string())),
  includeMessageContent: v.boolean(),
  enabled: v.boolean(),
  status: v.picklist(['active', 'failing', 'disabled']),
  disabledReason: v.nullable(v.picklist(['user', 'endpoint_gone'])),
  credentialConfigured: v.boolean(),
  credentialFingerprint: v.nullable(v.string()),
  credentialVersion: v.pipe(v.number(), v.integer()),
  previousCredentialExpiresAt: v.nullable(Timestamp),
  /** A 64-bit project position, as a decimal string. */
  deliveredPosition: v.pipe(v.string(), v.regex(/^\d+$/)),
  cursor: v.string(),
  pendingEvents: v.pipe(v.number(), v.integer(), v.minValue(0)),
  consecutiveFailures: v.pipe(v.number(), v.integer(), v.minValue(0)),
  nextAttemptAt: v.nullable(Timestamp),
  lastAttemptAt: v.nullable(Timestamp),
  lastSuccessAt: v.nullable(Timestamp),
  lastFailureAt: v.nullable(Timestamp),
  lastResponseStatus: v.nullable(v.pipe(v.number(), v.integer())),
  lastErrorCode: v.nullable(v.string()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** Every webhook of the project (at most a handful) with the deployment flags a form needs. */
export const EventWebhookListShape = v.strictObject({
  data: v.array(PublicEventWebhookShape),
  pageInfo: v.strictObject({ nextCursor: v.null() }),
  /** Whether the server can seal signing secrets; creation fails without it. */
  credentialEncryptionConfigured: v.boolean(),
  /** Whether this server accepts `http://` and private-network endpoints (development only). */
  privateNetworkEndpointsAllowed: v.boolean(),
});
export const EventWebhookDeletedShape = v.strictObject({ id: Id, deleted: v.literal(true) });
