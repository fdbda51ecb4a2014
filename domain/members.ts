import * as v from 'valibot';
import { ScopeList } from './api-keys.ts';
import { ROLES, WILDCARD_SCOPE, type Role } from './scopes.ts';

const roleRank: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

const MemberRole = v.picklist(ROLES, 'role must be one of owner, admin, member, viewer');
const Subject = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'subject must not be empty'),
  v.maxLength(200, 'subject must be at most 200 characters'),
  v.check((subject) => !subject.startsWith('api_key:'), 'subject must not name an API key'),
);

/** Non-edge-proxy member body (spec 2 rule 3): `{subject, role, scopes}`. */
export const UpsertMemberInput = v.strictObject({ subject: Subject, role: MemberRole, scopes: ScopeList });
export type UpsertMemberInput = v.InferOutput<typeof UpsertMemberInput>;

export const UpdateMemberInput = v.pipe(
  v.strictObject({ role: v.optional(MemberRole), scopes: v.optional(ScopeList) }),
  v.check((input) => input.role !== undefined || input.scopes !== undefined, 'give role, scopes or both'),
);
export type UpdateMemberInput = v.InferOutput<typeof UpdateMemberInput>;

/** Owners hold `*`; other roles keep the explicit list they were given. */
export function scopesForRole(role: Role, scopes: readonly string[]): string[] {
  return role === 'owner' ? [WILDCARD_SCOPE] : [...scopes];
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
