import { ForbiddenError } from './errors.ts';

/**
 * Scope names of spec 3 "Scopes", and `memory:read`/`memory:write` for memory stores
 * (docs/decisions/memory-stores.md). `*` satisfies every project action.
 */
export const SCOPES = [
  'project:admin',
  'agent:read',
  'agent:write',
  'skill:read',
  'skill:write',
  'skill:bind',
  'skill:revoke',
  'session:read',
  'session:write',
  'run:create',
  'run:read',
  'run:cancel',
  'tool_call:claim',
  'tool_call:submit',
  'approval:resolve',
  'delegation:read',
  'delegation:message',
  'delegation:cancel',
  'mcp:read',
  'mcp:write',
  'mcp:discover',
  'mcp:bind',
  'mcp:execute',
  'credential:read_metadata',
  'credential:write',
  'credential:rotate',
  'credential:revoke',
  'schedule:read',
  'schedule:write',
  'usage:read',
  'memory:read',
  'memory:write',
] as const;

export type Scope = (typeof SCOPES)[number];
export const WILDCARD_SCOPE = '*';
export type GrantableScope = Scope | typeof WILDCARD_SCOPE;

const known = new Set<string>([...SCOPES, WILDCARD_SCOPE]);

export function isGrantableScope(value: string): value is GrantableScope {
  return known.has(value);
}

export function hasScope(held: readonly string[], required: Scope): boolean {
  return held.includes(WILDCARD_SCOPE) || held.includes(required);
}

/** The required scopes the holder lacks, in the order required. */
export function missingScopes(held: readonly string[], required: readonly Scope[]): Scope[] {
  return required.filter((scope) => !hasScope(held, scope));
}

/**
 * Whether a creator holding `held` may grant `requested`. `*` is grantable only by a holder
 * of `*`; every named scope needs the holder to have it (or `*`).
 */
export function ungrantableScopes(held: readonly string[], requested: readonly GrantableScope[]): GrantableScope[] {
  if (held.includes(WILDCARD_SCOPE)) return [];
  return requested.filter((scope) => scope === WILDCARD_SCOPE || !held.includes(scope));
}

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Organization roles that may administer projects and issue API keys (spec 2, 3). */
export function isOrganizationAdministrator(role: Role | null | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/** Throws the spec's 403 naming every missing scope (spec 3 "Scopes"). Routes and verbs share it. */
export function assertHasScopes(held: readonly string[], required: readonly Scope[]): void {
  const missing = missingScopes(held, required);
  if (missing.length > 0) {
    throw new ForbiddenError(`The principal lacks the required scope: ${missing.join(', ')}`, {
      requiredScopes: [...required],
      missingScopes: missing,
    });
  }
}
