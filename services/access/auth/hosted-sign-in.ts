import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt, ne } from 'drizzle-orm';
import { browserSessions, identities, loginStates, principals } from '../../../db/schema/index.ts';
import { createRelyingParty, type RelyingParty } from '../../../adapters/oidc/relying-party.ts';
import type { HostedSettings } from '../../../config/settings.ts';
import { ForbiddenError, UnauthenticatedError } from '../../../domain/errors.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { hashSessionToken } from './browser-session-token.ts';
import { readInstallation } from './installation.ts';
import { firstMemberProject } from './member-projects.ts';

/** The provider as settings name it, and our relying party there (adapters/oidc). */
export type HostedDeps = { oidc: { settings: HostedSettings; party: RelyingParty }; keyring: CredentialKeyring; refreshLifetimeDays: number };

/** Hosted sign-in wired from the settings: the relying party at the configured provider. */
export function hostedDeps(settings: HostedSettings, options: { allowHttp: boolean; keyring: CredentialKeyring; refreshLifetimeDays: number }): HostedDeps {
  const party = createRelyingParty({
    issuer: settings.issuer,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    caFile: settings.caFile,
    allowHttp: options.allowHttp,
  });
  return { oidc: { settings, party }, keyring: options.keyring, refreshLifetimeDays: options.refreshLifetimeDays };
}

const LOGIN_STATE_MS = 10 * 60 * 1000;
const STATE_AD = 'svc login state v1';
const TOKENS_AD = 'svc provider tokens v1';
const hashState = (state: string) => createHash('sha256').update(state, 'utf8').digest('hex');

/**
 * `POST /auth/login`: a fresh single-use state (ten minutes), PKCE verifier and nonce, stored
 * by the state's hash; returns the provider's authorization URL and the state for the cookie.
 */
export async function startHostedSignIn({ ctx, deps }: { ctx: ServiceContext; deps: HostedDeps }): Promise<{ redirectUrl: string; state: string }> {
  const { url, state, codeVerifier, nonce } = await deps.oidc.party.authorizationRequest({
    redirectUri: deps.oidc.settings.redirectUri,
    scope: deps.oidc.settings.scopes,
  });
  const now = ctx.clock.now();
  await ctx.db.delete(loginStates).where(lt(loginStates.expiresAt, new Date(now.getTime() - LOGIN_STATE_MS)));
  await ctx.db.insert(loginStates).values({
    stateHash: hashState(state),
    codeVerifierCiphertext: deps.keyring.encrypt(codeVerifier, STATE_AD),
    nonce,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LOGIN_STATE_MS),
  });
  return { redirectUrl: url, state };
}

export type HostedSession = { sessionToken: string; refreshToken: string; sessionMaxAgeSeconds: number; projectId: string };

/**
 * `GET /auth/callback`: `null` when the state is missing, mismatched, unknown, reused or expired
 * (the caller starts a fresh sign-in, spec 3 "Browser sessions" rule 3). Otherwise the code is
 * exchanged (PKCE, nonce, ID token checked by openid-client) and the subject must already have a
 * stored principal with a membership: a provider identity alone grants nothing.
 */
export async function completeHostedSignIn({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: HostedDeps;
  input: { callbackUrl: URL; stateCookie: string | null };
}): Promise<HostedSession | null> {
  const state = input.callbackUrl.searchParams.get('state');
  if (!state || !input.stateCookie || state !== input.stateCookie) return null;
  const now = ctx.clock.now();
  const [consumed] = await ctx.db
    .update(loginStates)
    .set({ consumedAt: now })
    .where(and(eq(loginStates.stateHash, hashState(state)), isNull(loginStates.consumedAt), gt(loginStates.expiresAt, now)))
    .returning();
  if (!consumed) return null;

  const { claims, accessToken, tokens } = await deps.oidc.party.exchangeCode({
    callbackUrl: input.callbackUrl,
    codeVerifier: deps.keyring.decrypt(consumed.codeVerifierCiphertext, STATE_AD),
    state,
    nonce: consumed.nonce,
  });
  const subject = claims.sub;
  const installation = await readInstallation(ctx.db);
  const projectId = installation && (await firstMemberProject(ctx.db, installation.organizationId, subject, installation.defaultProjectId));
  if (!installation || !projectId) {
    throw new ForbiddenError(`This identity has no access here; an organization owner or admin adds subject "${subject}" as a member first`);
  }
  // A conforming provider may leave profile claims out of the ID token and serve them from userinfo.
  const profile: Record<string, unknown> =
    typeof claims.name === 'string' && typeof claims.email === 'string' ? claims : { ...(await deps.oidc.party.userInfo(accessToken, subject)), ...claims };
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
      providerTokensCiphertext: deps.keyring.encrypt(JSON.stringify(tokens), TOKENS_AD),
    });
  });
  return { sessionToken, refreshToken, sessionMaxAgeSeconds, projectId };
}

/**
 * `POST /auth/refresh`: a new session and refresh cookie for a valid refresh cookie. When the
 * provider issued a refresh token it is asked again, so a revoked provider grant ends the session
 * (401: start a fresh sign-in) while a provider outage stays retryable (503). The subject must
 * still hold a membership. The old refresh cookie stops working (rotation).
 */
export async function refreshHostedSession({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: HostedDeps;
  input: { refreshToken: string };
}): Promise<HostedSession> {
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
    try {
      providerTokens = await deps.oidc.party.refresh({ ...stored, refreshToken: stored.refreshToken });
    } catch (error) {
      if (error instanceof UnauthenticatedError) await ctx.db.delete(browserSessions).where(eq(browserSessions.id, session.id));
      throw error;
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
export async function endHostedSession({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: HostedDeps & { appOrigin: string };
  input: { sessionId: string };
}): Promise<{ redirectUrl?: string }> {
  const [session] = await ctx.db.delete(browserSessions).where(eq(browserSessions.id, input.sessionId)).returning();
  if (!session?.providerTokensCiphertext) return {};
  const { idToken } = JSON.parse(deps.keyring.decrypt(session.providerTokensCiphertext, TOKENS_AD)) as { idToken: string | null };
  // The local session is gone either way; without an end-session URL the provider session stays.
  const redirectUrl = await deps.oidc.party.endSessionUrl({ postLogoutRedirectUri: `${deps.appOrigin}/`, idToken });
  return redirectUrl ? { redirectUrl } : {};
}
