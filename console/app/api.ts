import { ApiError, createClient, type AuthProvider, type Context, type ProjectClient } from '../../client/src/index.ts';
import { Transport } from '../../client/src/transport.ts';

export { ApiError };
export type Provider = AuthProvider;

const origin = window.location.origin;

/**
 * fetch for the console: cookie credentials of this origin only. In hosted mode an expired
 * access session is refreshed once (`POST /auth/refresh`) and the request retried (spec 3
 * "Browser sessions" 4). A rejected refresh (401) starts a fresh hosted login once this page
 * has been signed in (a first visit shows the sign-in screen instead); a transient
 * failure (the provider unreachable: 5xx) is answered as it came, so the screen shows it and
 * the person can retry.
 */
type RefreshOutcome = 'refreshed' | 'rejected' | Response;
let refreshing: Promise<RefreshOutcome> | null = null;
// Counts successful refreshes: a request that went out before one finished was refused for the
// old cookie and only needs sending again (a second refresh would rotate the new cookie away).
let refreshes = 0;
let refreshRefused = false;
async function consoleFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const sentAfter = refreshes;
  const response = await fetch(input, { ...init, credentials: 'same-origin' });
  if (response.status !== 401 || String(input).includes('/v1/auth/') || currentProvider?.mode !== 'hosted') return response;
  if (refreshes !== sentAfter) return fetch(input, { ...init, credentials: 'same-origin' });
  // Refused once: the session is over for this page (a fresh login is on its way, or the sign-in screen shows).
  if (refreshRefused) return response;
  refreshing ??= fetch(`${origin}/v1/auth/refresh`, { method: 'POST', credentials: 'same-origin', headers: { 'Idempotency-Key': crypto.randomUUID() } })
    .then((answer): RefreshOutcome => {
      if (answer.ok) refreshes++;
      else if (answer.status === 401) refreshRefused = true;
      return answer.ok ? 'refreshed' : answer.status === 401 ? 'rejected' : answer;
    })
    .finally(() => (refreshing = null));
  const outcome = await refreshing;
  if (outcome === 'refreshed') return fetch(input, { ...init, credentials: 'same-origin' });
  // A first visit without a session sees the sign-in screen; a session that ends under a working page goes to the provider again.
  if (outcome === 'rejected') {
    if (signedInThisPage) void startHostedLogin();
    return response;
  }
  return outcome.clone();
}

/** Sends the browser to the identity provider (hosted mode); it comes back to the console signed in. */
let loginStarted: Promise<void> | null = null;
export function startHostedLogin(): Promise<void> {
  loginStarted ??= apiCall<{ redirectUrl: string }>('POST', '/auth/login')
    .then(({ redirectUrl }) => window.location.assign(redirectUrl))
    .catch((error: unknown) => {
      loginStarted = null;
      throw error;
    });
  return loginStarted;
}

let currentProvider: Provider | null = null;
let signedInThisPage = false;

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
    const context = await apiCall<Context>('GET', '/context');
    signedInThisPage = true;
    refreshRefused = false;
    return context;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}
