import { describe, expect, it } from 'vitest';
import { canGrantRole, lowersAccess, refuseMembershipChange, ROLE_SCOPES, scopesForRole } from './members.ts';
import { ROLES, SCOPES, type Role } from './scopes.ts';
import { hasScope, missingScopes, ungrantableScopes } from './scopes.ts';

describe('scopes', () => {
  it('* satisfies every scope; named scopes satisfy only themselves', () => {
    expect(hasScope(['*'], 'run:cancel')).toBe(true);
    expect(hasScope(['run:read'], 'run:cancel')).toBe(false);
    expect(missingScopes(['run:read'], ['run:read', 'run:create'])).toEqual(['run:create']);
  });

  it('a creator grants only what it holds; only * grants *', () => {
    expect(ungrantableScopes(['*'], ['*', 'agent:write'])).toEqual([]);
    expect(ungrantableScopes(['project:admin', 'agent:read'], ['agent:read', 'agent:write', '*'])).toEqual(['agent:write', '*']);
  });
});

describe('member rules', () => {
  it('owners grant any role, admins all but owner, others none', () => {
    expect(canGrantRole('owner', 'owner')).toBe(true);
    expect(canGrantRole('admin', 'owner')).toBe(false);
    expect(canGrantRole('admin', 'viewer')).toBe(true);
    expect(canGrantRole('member', 'viewer')).toBe(false);
    expect(canGrantRole(null, 'viewer')).toBe(false);
  });

  it('owners hold *; lowering is a lower role or a removed scope', () => {
    expect(scopesForRole('owner', ['agent:read']).scopes).toEqual(['*']);
    expect(scopesForRole('member', ['agent:read'])).toEqual({ scopes: ['agent:read'], outside: [] });
    expect(scopesForRole('viewer', ['agent:read', 'agent:write'])).toEqual({ scopes: ['agent:read'], outside: ['agent:write'] });
    expect(scopesForRole('member').scopes).toEqual(ROLE_SCOPES.member);
    expect(lowersAccess({ role: 'admin', scopes: ['a'] }, { role: 'member', scopes: ['a'] })).toBe(true);
    expect(lowersAccess({ role: 'member', scopes: ['a', 'b'] }, { role: 'member', scopes: ['a'] })).toBe(true);
    expect(lowersAccess({ role: 'member', scopes: ['a'] }, { role: 'admin', scopes: ['a', 'b'] })).toBe(false);
    expect(lowersAccess({ role: 'member', scopes: ['a'] }, { role: 'owner', scopes: ['*'] })).toBe(false);
  });
});

describe('role profiles (spec 3 "Roles" rule 2)', () => {
  it('owner is *, admin an explicit list of every named scope, viewer reads only', () => {
    expect(ROLE_SCOPES.owner).toEqual(['*']);
    expect(ROLE_SCOPES.admin).not.toContain('*');
    expect([...ROLE_SCOPES.admin].sort()).toEqual([...SCOPES].sort());
    expect(ROLE_SCOPES.viewer.every((scope) => /:read(_metadata)?$/.test(scope))).toBe(true);
    expect(ROLE_SCOPES.member).not.toContain('project:admin');
    for (const scope of ['agent:write', 'skill:write', 'session:write', 'run:create', 'run:cancel']) expect(ROLE_SCOPES.member).toContain(scope);
  });
});

describe('the grant matrix (spec 3 "Roles" rule 3)', () => {
  // [changer role, target's current role (null: new), next role (null: removal)] → allowed?
  const allowed = (changer: Role, target: Role | null, next: Role | null): boolean => {
    if (changer !== 'owner' && changer !== 'admin') return false;
    if (changer === 'admin' && (target === 'owner' || next === 'owner')) return false;
    return true;
  };
  const cases: Array<[Role, Role | null, Role | null]> = [];
  for (const changer of ROLES)
    for (const target of [...ROLES, null]) for (const next of [...ROLES, null]) if (target !== null || next !== null) cases.push([changer, target, next]);

  it.each(cases)('%s changing a %s to %s', (changer, target, next) => {
    const refusal = refuseMembershipChange(
      { kind: 'human', subject: 'me', organizationRole: changer },
      target ? { subject: 'them', organizationRole: target } : null,
      next,
      1,
    );
    expect(refusal === null).toBe(allowed(changer, target, next));
    if (refusal) expect(refusal.status).toBe(403);
  });

  it('nobody changes or removes themselves; API keys and service principals grant nothing; the last owner stays', () => {
    const owner = { kind: 'human', subject: 'me', organizationRole: 'owner' as const };
    expect(refuseMembershipChange(owner, { subject: 'me', organizationRole: 'owner' }, 'admin', 5)?.message).toMatch(/itself/);
    expect(refuseMembershipChange({ ...owner, kind: 'api_key' }, null, 'viewer', 1)?.message).toMatch(/API keys/);
    expect(refuseMembershipChange({ ...owner, kind: 'service' }, null, 'viewer', 1)?.status).toBe(403);
    expect(refuseMembershipChange(owner, { subject: 'them', organizationRole: 'owner' }, null, 0)).toEqual({
      status: 409,
      message: 'The last owner cannot be removed or demoted',
    });
    expect(refuseMembershipChange(owner, { subject: 'them', organizationRole: 'owner' }, 'admin', 1)).toBeNull();
  });
});
