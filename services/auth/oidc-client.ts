import * as fs from 'node:fs';
import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import type { HostedSettings } from '../../config/settings.ts';
import { ServiceUnavailableError } from '../../domain/errors.ts';

/**
 * The relying-party side of hosted sign-in (openid-client). Discovery runs on first use and is
 * kept; a failed discovery is retried on the next request (503 meanwhile) rather than stopping
 * the server, so the API starts while the provider is down.
 */
export type OidcClient = {
  settings: HostedSettings;
  configuration(): Promise<client.Configuration>;
};

export function createOidcClient(settings: HostedSettings, options: { allowHttp: boolean }): OidcClient {
  let pending: Promise<client.Configuration> | null = null;
  const fetchOptions: Parameters<typeof client.discovery>[4] = {};
  if (settings.caFile) {
    // A private CA for the provider's endpoints (an in-house provider, or the test fixture).
    const dispatcher = new Agent({ connect: { ca: [fs.readFileSync(settings.caFile, 'utf8')] } });
    fetchOptions[client.customFetch] = ((url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as never;
  }
  if (options.allowHttp && settings.issuer.startsWith('http://')) fetchOptions.execute = [client.allowInsecureRequests];
  const authentication = settings.clientSecret ? client.ClientSecretBasic(settings.clientSecret) : client.None();
  return {
    settings,
    configuration() {
      pending ??= client.discovery(new URL(settings.issuer), settings.clientId, undefined, authentication, fetchOptions).catch((error: unknown) => {
        pending = null;
        throw new ServiceUnavailableError(`The identity provider could not be reached (${describe(error)}); retry shortly`);
      });
      return pending;
    },
  };
}

/** A short, secret-free description of a provider failure. */
export function describe(error: unknown): string {
  if (error instanceof client.ResponseBodyError) return `${error.error}`;
  if (error instanceof Error) return error.message.slice(0, 200);
  return 'unknown error';
}
