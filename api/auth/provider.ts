import type { Context, Hono } from 'hono';
import type { Actor, ServiceContext } from '../../services/kernel/service-context.ts';
import type { AppEnv } from '../env.ts';

/**
 * How browser requests authenticate, one implementation per sign-in mode (spec 3 "Modes"):
 * development (api/auth/development.ts), edge-proxy (edge-proxy.ts) and hosted (hosted.ts). API
 * keys are handled by the auth middleware in every mode.
 */
export type AuthProvider = {
  mode: 'development' | 'edge_proxy' | 'hosted';
  /** Routes under `/v1/auth` (login, logout, ...). */
  routes: Hono<AppEnv>;
  /** Paths under `/v1` reachable without authentication, as `METHOD /v1/path`. */
  publicRoutes: ReadonlySet<string>;
  /** The browser credential's actor, or null when the request carries none. */
  authenticate(c: Context<AppEnv>, ctx: ServiceContext): Promise<BrowserAuthentication | null>;
  /**
   * Checks a credential that travels beside an API key (edge-proxy mode: the edge's assertion,
   * or `Proxy-Authorization`, spec 3 "API keys" rule 5). The API key stays the principal.
   */
  checkBesideApiKey?(c: Context<AppEnv>): Promise<void>;
};

export type BrowserAuthentication = { actor: Actor; sessionId: string | null; method: 'cookie' | 'edge_assertion' };
