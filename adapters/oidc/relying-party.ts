import * as fs from 'node:fs';
import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { ServiceUnavailableError, UnauthenticatedError } from '../../domain/errors.ts';

/** Who we are at which OpenID provider. */
export type RelyingPartyOptions = {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  /** A private CA for the provider's endpoints (an in-house provider, or the test fixture). */
  caFile: string | undefined;
  /** Development only: an `http://` issuer. */
  allowHttp: boolean;
};

/** Provider tokens as we keep them (sealed by the caller). */
export type ProviderTokens = { refreshToken: string | null; idToken: string | null };

/**
 * The relying-party side of hosted sign-in over openid-client: the authorization code flow with
 * PKCE and nonce, userinfo, refresh and RP-initiated logout. Discovery runs on first use and is
 * kept; a failed discovery is retried on the next call (503 meanwhile) rather than stopping the
 * server, so the API starts while the provider is down. A provider that says no is
 * `UnauthenticatedError` (401), one that fails `ServiceUnavailableError` (503); messages carry
 * the provider's error code at most, never a token.
 */
export type RelyingParty = {
  /** A fresh single-use state, PKCE verifier and nonce, and the authorization URL carrying them. */
  authorizationRequest(input: { redirectUri: string; scope: string }): Promise<{ url: string; state: string; codeVerifier: string; nonce: string }>;
  /** Exchanges the callback's code (state, PKCE and nonce checked, an ID token required). */
  exchangeCode(input: {
    callbackUrl: URL;
    codeVerifier: string;
    state: string;
    nonce: string;
  }): Promise<{ claims: Record<string, unknown> & { sub: string }; accessToken: string; tokens: ProviderTokens }>;
  /** The userinfo claims, or none (no endpoint, or it failed: names are presentation only). */
  userInfo(accessToken: string, subject: string): Promise<Record<string, unknown>>;
  /** Asks the provider again with its refresh token; the tokens to keep next. */
  refresh(tokens: ProviderTokens & { refreshToken: string }): Promise<ProviderTokens>;
  /** The URL that ends the provider session too, when the provider offers one (never throws). */
  endSessionUrl(input: { postLogoutRedirectUri: string; idToken: string | null }): Promise<string | null>;
};

export function createRelyingParty(options: RelyingPartyOptions): RelyingParty {
  let pending: Promise<client.Configuration> | null = null;
  const fetchOptions: Parameters<typeof client.discovery>[4] = {};
  if (options.caFile) {
    const dispatcher = new Agent({ connect: { ca: [fs.readFileSync(options.caFile, 'utf8')] } });
    fetchOptions[client.customFetch] = ((url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as never;
  }
  if (options.allowHttp && options.issuer.startsWith('http://')) fetchOptions.execute = [client.allowInsecureRequests];
  const authentication = options.clientSecret ? client.ClientSecretBasic(options.clientSecret) : client.None();
  const configuration = () => {
    pending ??= client.discovery(new URL(options.issuer), options.clientId, undefined, authentication, fetchOptions).catch((error: unknown) => {
      pending = null;
      throw new ServiceUnavailableError(`The identity provider could not be reached (${describe(error)}); retry shortly`);
    });
    return pending;
  };
  return {
    async authorizationRequest({ redirectUri, scope }) {
      const config = await configuration();
      const state = client.randomState();
      const codeVerifier = client.randomPKCECodeVerifier();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, state, codeVerifier, nonce };
    },

    async exchangeCode({ callbackUrl, codeVerifier, state, nonce }) {
      const config = await configuration();
      try {
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: codeVerifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
        return {
          claims: tokens.claims()!,
          accessToken: tokens.access_token,
          tokens: { refreshToken: tokens.refresh_token ?? null, idToken: tokens.id_token ?? null },
        };
      } catch (error) {
        throw providerFailure(error, 'sign-in');
      }
    },

    async userInfo(accessToken, subject) {
      const config = await configuration();
      if (!config.serverMetadata().userinfo_endpoint) return {};
      try {
        return { ...(await client.fetchUserInfo(config, accessToken, subject)) };
      } catch {
        return {};
      }
    },

    async refresh(tokens) {
      const config = await configuration();
      try {
        const renewed = await client.refreshTokenGrant(config, tokens.refreshToken);
        return { refreshToken: renewed.refresh_token ?? tokens.refreshToken, idToken: renewed.id_token ?? tokens.idToken };
      } catch (error) {
        throw providerFailure(error, 'refresh');
      }
    },

    async endSessionUrl({ postLogoutRedirectUri, idToken }) {
      try {
        const config = await configuration();
        if (!config.serverMetadata().end_session_endpoint) return null;
        return client.buildEndSessionUrl(config, { post_logout_redirect_uri: postLogoutRedirectUri, ...(idToken ? { id_token_hint: idToken } : {}) }).href;
      } catch {
        return null;
      }
    },
  };
}

/** A provider that says no (invalid_grant, access_denied, bad ID token) is 401; one that fails is 503. */
function providerFailure(error: unknown, what: string): Error {
  if (error instanceof ServiceUnavailableError) return error;
  if (error instanceof client.ResponseBodyError && error.status < 500)
    return new UnauthenticatedError(`The identity provider rejected the ${what} (${error.error})`);
  if (error instanceof client.AuthorizationResponseError) return new UnauthenticatedError(`The identity provider rejected the ${what} (${error.error})`);
  if (error instanceof client.ClientError) return new UnauthenticatedError(`The identity provider's answer to the ${what} did not validate`);
  return new ServiceUnavailableError(`The identity provider could not complete the ${what} (${describe(error)}); retry shortly`);
}

/** A short, secret-free description of a provider failure. */
function describe(error: unknown): string {
  if (error instanceof client.ResponseBodyError) return `${error.error}`;
  if (error instanceof Error) return error.message.slice(0, 200);
  return 'unknown error';
}
