import * as v from 'valibot';
import { eventKindFilterProblem, MAX_EVENT_KIND_FILTERS } from './event-filter.ts';
import { DEFAULT_PREVIOUS_CREDENTIAL_TTL_SECONDS, MAX_ENDPOINT_URL_LENGTH, MAX_PREVIOUS_CREDENTIAL_TTL_SECONDS } from './limits.ts';
import { signingSecretProblem } from './signing-secret.ts';

/** Request bodies of the event webhook routes (spec 2 "Event webhooks"). */

const DisplayName = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'displayName must not be empty'),
  v.maxLength(200, 'displayName must be at most 200 characters'),
);
const EndpointUrl = v.pipe(
  v.string(),
  v.minLength(1, 'endpointUrl must not be empty'),
  v.maxLength(MAX_ENDPOINT_URL_LENGTH, `endpointUrl must be at most ${MAX_ENDPOINT_URL_LENGTH} characters`),
);
const SigningSecret = v.pipe(
  v.string('signingSecret must be a string'),
  v.check((secret) => signingSecretProblem(secret) === null, 'signingSecret must be "whsec_" followed by the base64 of 24 to 64 random bytes'),
);

const EventKindEntry = v.pipe(
  v.string(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = eventKindFilterProblem(dataset.value);
    if (problem) addIssue({ message: `eventKinds entry ${problem}` });
  }),
);

/** null = every kind. Duplicates are dropped (the filter is a set); an empty list is refused. */
const EventKinds = v.nullable(
  v.pipe(
    v.array(EventKindEntry),
    v.minLength(1, 'eventKinds must name at least one kind, or be null for every kind'),
    v.maxLength(MAX_EVENT_KIND_FILTERS, `eventKinds may hold at most ${MAX_EVENT_KIND_FILTERS} entries`),
    v.transform((kinds) => [...new Set(kinds)]),
  ),
);

export const CreateEventWebhookInput = v.strictObject({
  displayName: DisplayName,
  endpointUrl: EndpointUrl,
  signingSecret: SigningSecret,
  eventKinds: v.optional(EventKinds, null),
  includeMessageContent: v.optional(v.boolean(), false),
  deliverFrom: v.optional(v.picklist(['now', 'beginning'], 'deliverFrom must be "now" or "beginning"'), 'now'),
});
export type CreateEventWebhookInput = v.InferOutput<typeof CreateEventWebhookInput>;

export const UpdateEventWebhookInput = v.strictObject({
  displayName: v.optional(DisplayName),
  endpointUrl: v.optional(EndpointUrl),
  eventKinds: v.optional(EventKinds),
  includeMessageContent: v.optional(v.boolean()),
  enabled: v.optional(v.boolean()),
});
export type UpdateEventWebhookInput = v.InferOutput<typeof UpdateEventWebhookInput>;

export const RotateEventWebhookCredentialInput = v.strictObject({
  signingSecret: SigningSecret,
  previousCredentialTtlSeconds: v.optional(
    v.pipe(
      v.number(),
      v.integer('previousCredentialTtlSeconds must be an integer'),
      v.minValue(0, `previousCredentialTtlSeconds must be from 0 to ${MAX_PREVIOUS_CREDENTIAL_TTL_SECONDS}`),
      v.maxValue(MAX_PREVIOUS_CREDENTIAL_TTL_SECONDS, `previousCredentialTtlSeconds must be from 0 to ${MAX_PREVIOUS_CREDENTIAL_TTL_SECONDS}`),
    ),
    DEFAULT_PREVIOUS_CREDENTIAL_TTL_SECONDS,
  ),
});
export type RotateEventWebhookCredentialInput = v.InferOutput<typeof RotateEventWebhookCredentialInput>;
