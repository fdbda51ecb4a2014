export const PRINCIPAL_KINDS = ['api_key', 'human', 'service'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

/** The subject of an API key's mirror principals is this prefix and the key id. */
export const API_KEY_SUBJECT_PREFIX = 'api_key:';
export const apiKeySubject = (apiKeyId: string) => `${API_KEY_SUBJECT_PREFIX}${apiKeyId}`;

/** The API key id of a mirror principal's subject, or null for any other subject. */
export const apiKeyIdOfSubject = (subject: string) => (subject.startsWith(API_KEY_SUBJECT_PREFIX) ? subject.slice(API_KEY_SUBJECT_PREFIX.length) : null);

/** The fixed development principal (spec 3 "Modes"). */
export const DEVELOPMENT_SUBJECT = 'development:owner';
export const DEVELOPMENT_ORGANIZATION_SLUG = 'default';
export const DEVELOPMENT_PROJECT_SLUG = 'default';
