import { bigint, boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, credentialColumns, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';

/**
 * Project event webhooks and their durable delivery state (spec 1 "Event webhook", spec 3
 * "Webhook delivery"). The signing secret is sealed with the credential keyring (AAD
 * `event_webhook:<id>`); during rotation the previous ciphertext is kept until it expires.
 *
 * The pending batch (`pending_batch_*`) is the batch being delivered: its id is the
 * `webhook-id` header, identical on every retry, and its position range fixes its events.
 * `change_sequence` counts delivery-relevant changes (endpoint, filter, message content,
 * enabled); an attempt records its outcome only if the sequence it started under is current.
 */
export const eventWebhooks = pgTable(
  'event_webhooks',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    displayName: text('display_name').notNull(),
    endpointUrl: text('endpoint_url').notNull(),
    // null = every kind; otherwise exact kinds and family wildcards such as `run.*`.
    eventKinds: jsonb('event_kinds').$type<string[] | null>(),
    includeMessageContent: boolean('include_message_content').notNull(),
    enabled: boolean('enabled').notNull(),
    status: text('status').$type<'active' | 'failing' | 'disabled'>().notNull(),
    disabledReason: text('disabled_reason').$type<'user' | 'endpoint_gone' | null>(),
    ...credentialColumns(),
    previousCredentialCiphertext: text('previous_credential_ciphertext'),
    previousCredentialExpiresAt: timestampColumn('previous_credential_expires_at'),
    deliveredPosition: bigint('delivered_position', { mode: 'bigint' }).notNull(),
    changeSequence: integer('change_sequence').notNull().default(0),
    pendingBatchId: uuid('pending_batch_id'),
    pendingFromPosition: bigint('pending_from_position', { mode: 'bigint' }),
    pendingThroughPosition: bigint('pending_through_position', { mode: 'bigint' }),
    pendingBatchCreatedAt: timestampColumn('pending_batch_created_at'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    nextAttemptAt: timestampColumn('next_attempt_at'),
    lastAttemptAt: timestampColumn('last_attempt_at'),
    lastSuccessAt: timestampColumn('last_success_at'),
    lastFailureAt: timestampColumn('last_failure_at'),
    lastResponseStatus: integer('last_response_status'),
    lastErrorCode: text('last_error_code'),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('event_webhooks_project_idx').on(table.projectId, table.createdAt)],
);
