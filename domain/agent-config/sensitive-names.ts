/**
 * Tool schemas are public configuration sent to model providers, so a property that would carry
 * a credential is refused at publication (spec 1 "Schema rules"). Credentials belong in MCP
 * credentials or in the caller's own tool handler, never in model-visible arguments.
 *
 * Rule: lowercase the name and drop `_`, `-`, `.` and whitespace; the name is sensitive when
 * the result CONTAINS one of SENSITIVE_FRAGMENTS, or EQUALS or ENDS WITH one of
 * SENSITIVE_SUFFIXES. Suffix matching keeps counters such as `maxTokens`, `tokenCount` and
 * `tokenizer` usable while still catching `githubToken` and `access_token`.
 *
 * Rejected: token, apiKey, X-API-Key, Authorization, userPassword, password_hash, clientSecret,
 * client.secret, githubToken, refresh-token, sessionCookie, dbCredentials, privateKeyPem,
 * passphrase, basicAuth, awsAccessKey, nextPageToken (deliberately: rename it `cursor`),
 * authorizationUrl and secretary (deliberate false positives of containment).
 * Accepted: maxTokens, tokenCount, totalTokens, tokens, tokenizer, author, authorName, key,
 * sortKey, idempotencyKey, publicKey, passage, sessionId.
 */

/** Sensitive wherever they occur in the normalized name. */
export const SENSITIVE_FRAGMENTS: readonly string[] = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'privatekey',
  'credential',
  'authorization',
  'cookie',
];

/** Sensitive as the whole normalized name or its ending. */
export const SENSITIVE_SUFFIXES: readonly string[] = ['token', 'auth', 'accesskey', 'signingkey', 'encryptionkey'];

/** `X-API-Key` → `xapikey`; `client.secret` → `clientsecret`. */
export function normalizePropertyName(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]/g, '');
}

/** The sensitive word a property name matches, or null when the name is acceptable. */
export function sensitiveWordIn(name: string): string | null {
  const normalized = normalizePropertyName(name);
  return SENSITIVE_FRAGMENTS.find((fragment) => normalized.includes(fragment)) ?? SENSITIVE_SUFFIXES.find((suffix) => normalized.endsWith(suffix)) ?? null;
}

export function isSensitivePropertyName(name: string): boolean {
  return sensitiveWordIn(name) !== null;
}
