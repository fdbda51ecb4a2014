import { describe, expect, it } from 'vitest';
import { canTransitionSkillVersion, isFinalSkillVersionStatus, type SkillVersionStatus } from './lifecycle.ts';

describe('Skill version lifecycle', () => {
  it.each([
    ['active', 'deprecated', true],
    ['active', 'revoked', true],
    ['deprecated', 'revoked', true],
    ['deprecated', 'active', false],
    ['revoked', 'active', false],
    ['revoked', 'deprecated', false],
    ['active', 'active', false],
  ] as Array<[SkillVersionStatus, SkillVersionStatus, boolean]>)('%s → %s: %s', (from, to, allowed) => {
    expect(canTransitionSkillVersion(from, to)).toBe(allowed);
  });

  it('revoked is final', () => {
    expect(isFinalSkillVersionStatus('revoked')).toBe(true);
    expect(isFinalSkillVersionStatus('deprecated')).toBe(false);
  });
});
