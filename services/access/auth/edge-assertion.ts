import * as fs from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { EdgeProxySettings } from '../../../config/settings.ts';
import { ServiceUnavailableError, UnauthenticatedError } from '../../../domain/errors.ts';

/** Who the edge says is calling: the immutable subject and what the service records of them. */
export type EdgeIdentity = { subject: string; kind: 'human' | 'service'; email: string | null; displayName: string | null };

export type EdgeAssertionVerifier = (token: string) => Promise<EdgeIdentity>;

/**
 * Verifies the edge's signed assertion (a JWT) against the configured key set, with the exact
 * issuer and audience, an allow-listed algorithm (never `none` or HMAC), and expiry checked with
 * a small clock skew. Every rejection is 401 with a reason that names no token content; a key set
 * that cannot be fetched is 503.
 */
export function createEdgeAssertionVerifier(settings: EdgeProxySettings): EdgeAssertionVerifier {
  const keys = settings.jwksUrl
    ? createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 })
    : createLocalJWKSet(JSON.parse(fs.readFileSync(settings.publicKeysFile!, 'utf8')));
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: settings.algorithms,
        clockTolerance: settings.clockSkewSeconds,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (error) {
      throw rejection(error);
    }
    return identityOf(payload, settings);
  };
}

function rejection(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new UnauthenticatedError('The edge assertion has expired');
  if (error instanceof errors.JWTClaimValidationFailed) return new UnauthenticatedError(`The edge assertion's ${error.claim} claim is not accepted`);
  if (error instanceof errors.JOSEAlgNotAllowed) return new UnauthenticatedError("The edge assertion's algorithm is not allowed");
  if (error instanceof errors.JWKSNoMatchingKey) return new UnauthenticatedError('The edge assertion is signed with an unknown key');
  const keySetUnavailable = error instanceof errors.JWKSTimeout || (error instanceof errors.JOSEError && /JSON Web Key Set HTTP response/.test(error.message));
  if (keySetUnavailable || (error instanceof Error && !(error instanceof errors.JOSEError))) {
    return new ServiceUnavailableError("The edge's public keys could not be fetched; retry shortly");
  }
  return new UnauthenticatedError('The edge assertion is not valid');
}

function identityOf(payload: JWTPayload, settings: EdgeProxySettings): EdgeIdentity {
  const subject = payload.sub;
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > 200 || subject.startsWith('api_key:')) {
    throw new UnauthenticatedError('The edge assertion has no usable subject');
  }
  const email = typeof payload.email === 'string' ? payload.email.trim().toLowerCase() : null;
  if (email && payload.email_verified === false) throw new UnauthenticatedError("The edge assertion's email is not verified");
  const domain = email?.split('@')[1] ?? null;
  const machine = !email || (domain !== null && settings.serviceAccountDomains.some((suffix) => domain === suffix || domain.endsWith(`.${suffix}`)));
  const name = typeof payload.name === 'string' ? payload.name.slice(0, 200) : null;
  return { subject, kind: machine ? 'service' : 'human', email, displayName: name };
}
