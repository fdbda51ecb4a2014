import * as v from 'valibot';
import { ScopeList } from './api-keys.ts';
import { ROLES, SCOPES, WILDCARD_SCOPE, type Role, type Scope } from './scopes.ts';

const roleRank: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** What only administrators do: the project itself, shared MCP servers, credential secrets. */
const ADMINISTRATION_SCOPES = new Set<Scope>(['project:admin', 'mcp:write', 'mcp:discover', 'credential:write', 'credential:rotate', 'credential:revoke']);

/**
 * The fixed scope profile of each role (spec 3 "Roles" rule 2): owner `*`; admin every named
 * scope as an explicit list (never `*`, so scopes added later are not granted silently); member
 * the developer permissions for agents, Skills, sessions and runs; viewer reads only.
 */
export const ROLE_SCOPES: Record<Role, readonly string[]> = {
  owner: [WILDCARD_SCOPE],
  admin: SCOPES,
  member: SCOPES.filter((scope) => !ADMINISTRATION_SCOPES.has(scope)),
  viewer: SCOPES.filter((scope) => scope.endsWith(':read') || scope === 'credential:read_metadata'),
};

const MemberRole = v.picklist(ROLES, 'role must be one of owner, admin, member, viewer');
const Subject = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'subject must not be empty'),
  v.maxLength(200, 'subject must be at most 200 characters'),
  v.check((subject) => !subject.startsWith('api_key:'), 'subject must not name an API key'),
);
const Email = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(320, 'email must be at most 320 characters'),
  v.email('email must be an email address'),
  v.toLowerCase(),
);

/**
 * Non-edge-proxy member body (spec 2 rule 3): `{subject, role, scopes}`. `scopes` may narrow the
 * role's profile for this project; omitted, the member gets the whole profile.
 */
export const UpsertMemberInput = v.strictObject({ subject: Subject, role: MemberRole, scopes: v.optional(ScopeList) });
export type UpsertMemberInput = v.InferOutput<typeof UpsertMemberInput>;

/** Edge-proxy member body: the email of someone who already completed a verified sign-in. */
export const AddMemberByEmailInput = v.strictObject({ email: Email });
export type AddMemberByEmailInput = v.InferOutput<typeof AddMemberByEmailInput>;

export const UpdateMemberInput = v.pipe(
  v.strictObject({ role: v.optional(MemberRole), scopes: v.optional(ScopeList) }),
  v.check((input) => input.role !== undefined || input.scopes !== undefined, 'give role, scopes or both'),
);
export type UpdateMemberInput = v.InferOutput<typeof UpdateMemberInput>;

/** Edge-proxy `PATCH` body: the role only; scopes follow the role's profile. */
export const ChangeRoleInput = v.strictObject({ role: MemberRole });

/**
 * The scopes a member holds: the role's profile, or the part of it `requested` names. Returns
 * the scopes outside the profile as `outside` so the caller can refuse them.
 */
export function scopesForRole(role: Role, requested?: readonly string[]): { scopes: string[]; outside: string[] } {
  const profile = ROLE_SCOPES[role];
  if (role === 'owner' || requested === undefined) return { scopes: [...profile], outside: [] };
  return {
    scopes: profile.filter((scope) => requested.includes(scope)),
    outside: requested.filter((scope) => !profile.includes(scope)),
  };
}

/** Owners grant any role; admins grant admin, member, viewer (spec 3 "Roles" rule 3). */
export function canGrantRole(granter: Role | null, role: Role): boolean {
  if (granter === 'owner') return true;
  if (granter === 'admin') return role !== 'owner';
  return false;
}

/** Whether a change takes access away: a lower role or any scope removed. */
export function lowersAccess(before: { role: Role; scopes: readonly string[] }, after: { role: Role; scopes: readonly string[] }): boolean {
  if (roleRank[after.role] < roleRank[before.role]) return true;
  if (after.scopes.includes(WILDCARD_SCOPE)) return false;
  return before.scopes.some((scope) => !after.scopes.includes(scope));
}

export type MembershipChanger = { kind: string; subject: string; organizationRole: Role | null };
export type MembershipRefusal = { status: 403 | 409; message: string };

/**
 * The grant matrix of spec 3 "Roles" rule 3 for one change: `target` is the person changed
 * (null when new), `nextRole` the role they get (null for a removal). `ownersLeft` is how many
 * organization owners remain besides the target. Null means the change is allowed.
 */
export function refuseMembershipChange(
  changer: MembershipChanger,
  target: { subject: string; organizationRole: Role | null } | null,
  nextRole: Role | null,
  ownersLeft: number,
): MembershipRefusal | null {
  if (changer.kind !== 'human') return { status: 403, message: 'Only an authenticated person can change memberships; API keys cannot grant human access' };
  if (changer.organizationRole !== 'owner' && changer.organizationRole !== 'admin')
    return { status: 403, message: 'An organization owner or admin role is required' };
  if (target && target.subject === changer.subject) return { status: 403, message: 'The active principal cannot change or remove itself' };
  if (target?.organizationRole === 'owner' && changer.organizationRole !== 'owner')
    return { status: 403, message: 'Only an owner can change or remove an owner' };
  if (nextRole && !canGrantRole(changer.organizationRole, nextRole)) return { status: 403, message: 'An organization owner role is required to grant owner' };
  if (target?.organizationRole === 'owner' && nextRole !== 'owner' && ownersLeft < 1)
    return { status: 409, message: 'The last owner cannot be removed or demoted' };
  return null;
}
