import * as v from 'valibot';

/**
 * Skill version lifecycle (spec 1 "Skills" states): active → deprecated, active | deprecated →
 * revoked. Revoked is final. Asking for the status a version already has is a no-op.
 */
export const SKILL_VERSION_STATUSES = ['active', 'deprecated', 'revoked'] as const;
export type SkillVersionStatus = (typeof SKILL_VERSION_STATUSES)[number];

const transitions: Record<SkillVersionStatus, readonly SkillVersionStatus[]> = {
  active: ['deprecated', 'revoked'],
  deprecated: ['revoked'],
  revoked: [],
};

export function canTransitionSkillVersion(from: SkillVersionStatus, to: SkillVersionStatus): boolean {
  return transitions[from].includes(to);
}

/** True when nothing can change the status any more. */
export function isFinalSkillVersionStatus(status: SkillVersionStatus): boolean {
  return transitions[status].length === 0;
}

/** `PATCH .../lifecycle` body: only the two statuses a caller can move to. */
export const SetSkillVersionLifecycleInput = v.strictObject({
  status: v.picklist(['deprecated', 'revoked'], 'status must be "deprecated" or "revoked"'),
});
export type SetSkillVersionLifecycleInput = v.InferOutput<typeof SetSkillVersionLifecycleInput>;
