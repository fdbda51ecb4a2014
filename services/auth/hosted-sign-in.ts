import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt, ne } from 'drizzle-orm';
import * as client from 'openid-client';
import { browserSessions, identities, loginStates, principals } from '../../db/schema/index.ts';
import { ForbiddenError, ServiceUnavailableError, UnauthenticatedError } from '../../domain/errors.ts';
import type { CredentialKeyring } from '../credentials/keyring.ts';
import type { ServiceContext } from '../service-context.ts';
import { withTransaction } from '../transaction.ts';
import { hashSessionToken } from './browser-session-token.ts';
import { readInstallation } from './installation.ts';
import { describe, type OidcClient } from './oidc-client.ts';
import { firstMemberProject } from './member-projects.ts';

export type HostedDeps = { oidc: OidcClient; keyring: CredentialKeyring; refreshLifetimeDays: number };

const LOGIN_STATE_MS = 10 * 60 * 1000;
const STATE_AD = 'svc login state v1';
const TOKENS_AD = 'svc provider tokens v1';
const hashState = (state: string) => createHash('sha256').update(state, 'utf8').digest('hex');

/**
 * `POST /auth/login`: a fresh single-use state (ten minutes), PKCE verifier and nonce, stored
 * by the state's hash; returns the provider's authorization URL and the state for the cookie.
 */
export async function startHostedSignIn({ ctx, deps }: { ctx: ServiceContext; deps: HostedDeps }): Promise<{ redirectUrl: string; state: string }> {
  const config = await deps.oidc.configuration();
  const state = client.randomState();
  const codeVerifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const now = ctx.clock.now();
  await ctx.db.delete(loginStates).where(lt(loginStates.expiresAt, new Date(now.getTime() - LOGIN_STATE_MS)));
  await ctx.db.insert(loginStates).values({
    stateHash: hashState(state),
    codeVerifierCiphertext: deps.keyring.encrypt(codeVerifier, STATE_AD),
    nonce,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LOGIN_STATE_MS),
  });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: deps.oidc.settings.redirectUri,
    scope: deps.oidc.settings.scopes,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { redirectUrl: url.href, state };
}

export type HostedSession = { sessionToken: string; refreshToken: string; sessionMaxAgeSeconds: number; projectId: string };

/**
 * `GET /auth/callback`: `null` when the state is missing, mismatched, unknown, reused or expired
 * (the caller starts a fresh sign-in, spec 3 "Browser sessions" rule 3). Otherwise the code is
 * exchanged (PKCE, nonce, ID token checked by openid-client) and the subject must already have a
 * stored principal with a membership: a provider identity alone grants nothing.
 */
export async function completeHostedSignIn({ ctx, deps, input }: { ctx: ServiceContext; deps: HostedDeps; input: { callbackUrl: URL; stateCookie: string | null } }): Promise<HostedSession | null> {
  const state = input.callbackUrl.searchParams.get('state');
  if (!state || !input.stateCookie || state !== input.stateCookie) return null;
  const now = ctx.clock.now();
  const [consumed] = await ctx.db
    .update(loginStates)
    .set({ consumedAt: now })
    .where(and(eq(loginStates.stateHash, hashState(state)), isNull(loginStates.consumedAt), gt(loginStates.expiresAt, now)))
    .returning();
  if (!consumed) return null;

  const config = await deps.oidc.configuration();
  let tokens;
  try {
    tokens = await client.authorizationCodeGrant(config, input.callbackUrl, {
      pkceCodeVerifier: deps.keyring.decrypt(consumed.codeVerifierCiphertext, STATE_AD),
      expectedState: state,
      expectedNonce: consumed.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw providerFailure(error, 'sign-in');
  }
  const claims = tokens.claims()!;
  const subject = claims.sub;
  const installation = await readInstallation(ctx.db);
  const projectId = installation && (await firstMemberProject(ctx.db, installation.organizationId, subject, installation.defaultProjectId));
  if (!installation || !projectId) {
    throw new ForbiddenError(`This identity has no access here; an organization owner or admin adds subject "${subject}" as a member first`);
  }
  // A conforming provider may leave profile claims out of the ID token and serve them from userinfo.
  const profile: Record<string, unknown> = typeof claims.name === 'string' && typeof claims.email === 'string' ? claims : { ...(await userInfo(config, tokens.access_token, subject)), ...claims };
  const email = typeof profile.email === 'string' ? profile.email.toLowerCase() : null;
  const displayName = typeof profile.name === 'string' ? profile.name.slice(0, 200) : null;
  const sessionToken = randomBytes(32).toString('base64url');
  const refreshToken = randomBytes(32).toString('base64url');
  const sessionMaxAgeSeconds = deps.oidc.settings.sessionMinutes * 60;
  await withTransaction(ctx, async (tx) => {
    await tx.db
      .insert(identities)
      .values({ organizationId: installation.organizationId, subject, kind: 'human', email, displayName, lastSignInAt: now, createdAt: now })
      .onConflictDoUpdate({ target: [identities.organizationId, identities.subject], set: { email, displayName, lastSignInAt: now } });
    // The provider's name for the person is what the console and member lists show (presentation only, spec 3).
    if (displayName) {
      await tx.db
        .update(principals)
        .set({ displayName })
        .where(and(eq(principals.organizationId, installation.organizationId), eq(principals.subject, subject), ne(principals.kind, 'api_key')));
    }
    await tx.db.insert(browserSessions).values({
      organizationId: installation.organizationId,
      subject,
      tokenHash: hashSessionToken(sessionToken),
      homeProjectId: projectId,
      activeProjectId: projectId,
      expiresAt: new Date(now.getTime() + sessionMaxAgeSeconds * 1000),
      refreshTokenHash: hashSessionToken(refreshToken),
      refreshExpiresAt: new Date(now.getTime() + deps.refreshLifetimeDays * 24 * 60 * 60 * 1000),
      providerTokensCiphertext: deps.keyring.encrypt(JSON.stringify({ refreshToken: tokens.refresh_token ?? null, idToken: tokens.id_token ?? null }), TOKENS_AD),
    });
  });
  return { sessionToken, refreshToken, sessionMaxAgeSeconds, projectId };
}

/** The userinfo claims, or none: names are presentation only, so a failing userinfo never blocks a sign-in. */
async function userInfo(config: client.Configuration, accessToken: string, subject: string): Promise<Record<string, unknown>> {
  if (!config.serverMetadata().userinfo_endpoint) return {};
  try {
    return { ...(await client.fetchUserInfo(config, accessToken, subject)) };
  } catch {
    return {};
  }
}

/**
 * `POST /auth/refresh`: a new session and refresh cookie for a valid refresh cookie. When the
 * provider issued a refresh token it is asked again, so a revoked provider grant ends the session
 * (401: start a fresh sign-in) while a provider outage stays retryable (503). The subject must
 * still hold a membership. The old refresh cookie stops working (rotation).
 */
export async function refreshHostedSession({ ctx, deps, input }: { ctx: ServiceContext; deps: HostedDeps; input: { refreshToken: string } }): Promise<HostedSession> {
  const now = ctx.clock.now();
  const oldHash = hashSessionToken(input.refreshToken);
  const [session] = await ctx.db
    .select()
    .from(browserSessions)
    .where(and(eq(browserSessions.refreshTokenHash, oldHash), gt(browserSessions.refreshExpiresAt, now)));
  if (!session) throw new UnauthenticatedError('The refresh credential is not valid; sign in again');
  const stored = JSON.parse(deps.keyring.decrypt(session.providerTokensCiphertext!, TOKENS_AD)) as { refreshToken: string | null; idToken: string | null };
  let providerTokens = stored;
  if (stored.refreshToken) {
    const config = await deps.oidc.configuration();
    try {
      const renewed = await client.refreshTokenGrant(config, stored.refreshToken);
      providerTokens = { refreshToken: renewed.refresh_token ?? stored.refreshToken, idToken: renewed.id_token ?? stored.idToken };
    } catch (error) {
      const failure = providerFailure(error, 'refresh');
      if (failure instanceof UnauthenticatedError) await ctx.db.delete(browserSessions).where(eq(browserSessions.id, session.id));
      throw failure;
    }
  }
  const projectId = await firstMemberProject(ctx.db, session.organizationId, session.subject, session.activeProjectId ?? session.homeProjectId);
  if (!projectId) {
    await ctx.db.delete(browserSessions).where(eq(browserSessions.id, session.id));
    throw new UnauthenticatedError('The session has no project membership any more');
  }
  const sessionToken = randomBytes(32).toString('base64url');
  const refreshToken = randomBytes(32).toString('base64url');
  const sessionMaxAgeSeconds = deps.oidc.settings.sessionMinutes * 60;
  const rotated = await ctx.db
    .update(browserSessions)
    .set({
      tokenHash: hashSessionToken(sessionToken),
      refreshTokenHash: hashSessionToken(refreshToken),
      expiresAt: new Date(now.getTime() + sessionMaxAgeSeconds * 1000),
      providerTokensCiphertext: deps.keyring.encrypt(JSON.stringify(providerTokens), TOKENS_AD),
    })
    .where(and(eq(browserSessions.id, session.id), eq(browserSessions.refreshTokenHash, oldHash)))
    .returning({ id: browserSessions.id });
  if (rotated.length === 0) throw new UnauthenticatedError('The refresh credential was already used; sign in again');
  return { sessionToken, refreshToken, sessionMaxAgeSeconds, projectId };
}

/**
 * `POST /auth/logout`: ends the cookie session; when the provider offers RP-initiated logout,
 * the URL that ends the provider session too (back to the application origin).
 */
export async function endHostedSession({ ctx, deps, input }: { ctx: ServiceContext; deps: HostedDeps & { appOrigin: string }; input: { sessionId: string } }): Promise<{ redirectUrl?: string }> {
  const [session] = await ctx.db.delete(browserSessions).where(eq(browserSessions.id, input.sessionId)).returning();
  if (!session?.providerTokensCiphertext) return {};
  const { idToken } = JSON.parse(deps.keyring.decrypt(session.providerTokensCiphertext, TOKENS_AD)) as { idToken: string | null };
  try {
    const config = await deps.oidc.configuration();
    if (!config.serverMetadata().end_session_endpoint) return {};
    const url = client.buildEndSessionUrl(config, { post_logout_redirect_uri: `${deps.appOrigin}/`, ...(idToken ? { id_token_hint: idToken } : {}) });
    return { redirectUrl: url.href };
  } catch {
    // The local session is gone either way; the provider session simply stays.
    return {};
  }
}

/** A provider that says no (invalid_grant, access_denied, bad ID token) is 401; one that fails is 503. */
function providerFailure(error: unknown, what: string): Error {
  if (error instanceof ServiceUnavailableError) return error;
  if (error instanceof client.ResponseBodyError && error.status < 500) return new UnauthenticatedError(`The identity provider rejected the ${what} (${error.error})`);
  if (error instanceof client.AuthorizationResponseError) return new UnauthenticatedError(`The identity provider rejected the ${what} (${error.error})`);
  if (error instanceof client.ClientError) return new UnauthenticatedError(`The identity provider's answer to the ${what} did not validate`);
  return new ServiceUnavailableError(`The identity provider could not complete the ${what} (${describe(error)}); retry shortly`);
}
