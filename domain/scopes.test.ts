import { describe, expect, it } from 'vitest';
import { canGrantRole, lowersAccess, scopesForRole } from './members.ts';
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
    expect(scopesForRole('owner', ['agent:read'])).toEqual(['*']);
    expect(scopesForRole('member', ['agent:read'])).toEqual(['agent:read']);
    expect(lowersAccess({ role: 'admin', scopes: ['a'] }, { role: 'member', scopes: ['a'] })).toBe(true);
    expect(lowersAccess({ role: 'member', scopes: ['a', 'b'] }, { role: 'member', scopes: ['a'] })).toBe(true);
    expect(lowersAccess({ role: 'member', scopes: ['a'] }, { role: 'admin', scopes: ['a', 'b'] })).toBe(false);
    expect(lowersAccess({ role: 'member', scopes: ['a'] }, { role: 'owner', scopes: ['*'] })).toBe(false);
  });
});
