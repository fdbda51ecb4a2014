/**
 * Webhook signing secrets (spec 2): `whsec_` followed by the base64 of 24 to 64 random bytes,
 * as Standard Webhooks defines them. Only canonical, padded base64 is accepted, so one secret
 * has one spelling and its fingerprint is stable.
 */

const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;

/** Why a signing secret is unacceptable, or null. Never echoes the secret. */
export function signingSecretProblem(secret: string): string | null {
  const shape = 'signingSecret must be "whsec_" followed by the base64 of 24 to 64 random bytes';
  if (!secret.startsWith(PREFIX)) return shape;
  const encoded = secret.slice(PREFIX.length);
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return shape;
  let bytes: string;
  try {
    bytes = atob(encoded);
  } catch {
    return shape;
  }
  if (btoa(bytes) !== encoded) return shape;
  if (bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES) return shape;
  return null;
}

/** The base64 key part of a valid secret (what HMAC keys are decoded from). */
export function signingKeyBase64(secret: string): string {
  return secret.slice(PREFIX.length);
}
