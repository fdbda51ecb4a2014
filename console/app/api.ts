import { ApiError, createClient, type AuthProvider, type Context, type ProjectClient } from '../../client/src/index.ts';
import { Transport } from '../../client/src/transport.ts';

export { ApiError };
export type Provider = AuthProvider;

const origin = window.location.origin;

/**
 * fetch for the console: cookie credentials of this origin only. In hosted mode an expired
 * access session is refreshed once (`POST /auth/refresh`) and the request retried (spec 3
 * "Browser sessions" 4); a refused refresh leaves the 401 for the app to show the sign-in.
 */
let refreshing: Promise<boolean> | null = null;
async function consoleFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, { ...init, credentials: 'same-origin' });
  if (response.status !== 401 || String(input).endsWith('/auth/refresh') || currentProvider?.mode !== 'hosted') return response;
  refreshing ??= fetch(`${origin}/v1/auth/refresh`, { method: 'POST', credentials: 'same-origin', headers: { 'Idempotency-Key': crypto.randomUUID() } })
    .then((answer) => answer.ok)
    .finally(() => setTimeout(() => (refreshing = null), 0));
  return (await refreshing) ? fetch(input, { ...init, credentials: 'same-origin' }) : response;
}

let currentProvider: Provider | null = null;

/** A client of the signed-in project: every screen's calls go through the public `/v1` API. */
export const clientFor = (projectId: string): ProjectClient => createClient({ baseUrl: origin, projectId, fetch: consoleFetch });

const transport = new Transport({ baseUrl: origin, fetch: consoleFetch });

/** Calls outside a project (sign-in, context, organizations), through the client's transport. */
export const apiCall = <T>(method: string, path: string, body?: unknown): Promise<T> => transport.json<T>(method, path, body === undefined ? {} : { body });

export async function loadProvider(): Promise<Provider> {
  currentProvider = await apiCall<Provider>('GET', '/auth/provider');
  return currentProvider;
}

/** The signed-in context, or null when there is no session. */
export async function loadContext(): Promise<Context | null> {
  try {
    return await apiCall<Context>('GET', '/context');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}
