import * as v from 'valibot';
import { SkillVersionBodyFields } from './content.ts';
import { SKILL_DISPLAY_NAME_MAX_CHARS, SKILL_KEY_MAX_CHARS } from './limits.ts';
import { singleLineProblem } from './text.ts';

/** Skill keys: the agent key rule (1-64 of `a-z 0-9 - _`, starting with a letter or digit). */
export const SKILL_KEY_PATTERN = new RegExp(`^[a-z0-9][a-z0-9_-]{0,${SKILL_KEY_MAX_CHARS - 1}}$`);

export const SkillKey = v.pipe(
  v.string('key must be a string'),
  v.regex(SKILL_KEY_PATTERN, `key must be 1-${SKILL_KEY_MAX_CHARS} characters of a-z, 0-9, "-" and "_", starting with a letter or digit`),
);

export const SkillDisplayName = v.pipe(
  v.string('displayName must be a string'),
  v.trim(),
  v.minLength(1, 'displayName must not be empty'),
  v.maxLength(SKILL_DISPLAY_NAME_MAX_CHARS, `displayName must be at most ${SKILL_DISPLAY_NAME_MAX_CHARS} characters`),
  v.check((value) => singleLineProblem(value) === null, 'displayName must be one line of well-formed text'),
);

/** `POST /skills`: the Skill's `key` and `displayName` plus the body of version 1. */
export const CreateSkillInput = v.strictObject({ key: SkillKey, displayName: SkillDisplayName, ...SkillVersionBodyFields });
export type CreateSkillInput = v.InferOutput<typeof CreateSkillInput>;

/** `PATCH /skills/{id}`: only `enabled` can change; disable and enable are the lifecycle. */
export const SetSkillEnabledInput = v.strictObject({ enabled: v.boolean('enabled must be a boolean') });
export type SetSkillEnabledInput = v.InferOutput<typeof SetSkillEnabledInput>;
