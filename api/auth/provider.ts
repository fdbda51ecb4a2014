import type { Context, Hono } from 'hono';
import type { Actor, ServiceContext } from '../../services/service-context.ts';
import type { AppEnv } from '../env.ts';

/**
 * How browser requests authenticate. Development mode ships now; the edge-proxy (signed
 * assertion) and hosted (identity provider) modes implement this same interface. API keys are
 * handled by the auth middleware in every mode.
 */
export type AuthProvider = {
  mode: 'development' | 'edge_proxy' | 'hosted';
  /** Routes under `/v1/auth` (login, logout, ...). */
  routes: Hono<AppEnv>;
  /** Paths under `/v1` reachable without authentication, as `METHOD /v1/path`. */
  publicRoutes: ReadonlySet<string>;
  /** The browser credential's actor, or null when the request carries none. */
  authenticate(c: Context<AppEnv>, ctx: ServiceContext, pathProjectId: string | null): Promise<BrowserAuthentication | null>;
};

export type BrowserAuthentication = { actor: Actor; sessionId: string };
