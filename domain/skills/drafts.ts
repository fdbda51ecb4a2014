import * as v from 'valibot';
import { SkillKey, SkillDisplayName } from './skill.ts';
import { SkillFileInput } from './content.ts';

const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));

/** `POST /skill-drafts`: `{}` for a blank draft, or both ids to clone a version. */
export const CreateSkillDraftInput = v.optional(
  v.pipe(
    v.strictObject({ skillId: v.optional(Uuid), sourceSkillVersionId: v.optional(Uuid) }),
    v.check(
      (input) => (input.skillId === undefined) === (input.sourceSkillVersionId === undefined),
      'give both skillId and sourceSkillVersionId to clone, or neither',
    ),
  ),
  {},
);
export type CreateSkillDraftInput = v.InferOutput<typeof CreateSkillDraftInput>;

/**
 * `PATCH /skill-drafts/{id}`: any subset of the manifest fields and instructions. Each given
 * field is checked by the version rules; `null` clears it (required fields are then reported by
 * validation and publication).
 */
export const UpdateSkillDraftInput = v.strictObject({
  name: v.optional(v.nullable(v.string('name must be a string or null'))),
  description: v.optional(v.nullable(v.string('description must be a string or null'))),
  instructions: v.optional(v.nullable(v.string('instructions must be a string or null'))),
  license: v.optional(v.nullable(v.string('license must be a string or null'))),
  compatibility: v.optional(v.nullable(v.string('compatibility must be a string or null'))),
  metadata: v.optional(v.record(v.string(), v.string('metadata values must be strings'))),
  allowedTools: v.optional(v.array(v.string('allowedTools entries must be strings'))),
});
export type UpdateSkillDraftInput = v.InferOutput<typeof UpdateSkillDraftInput>;

export const CreateDraftDirectoryInput = v.strictObject({ path: v.string('path must be a string') });
export type CreateDraftDirectoryInput = v.InferOutput<typeof CreateDraftDirectoryInput>;

export const PutDraftFileInput = SkillFileInput;
export type PutDraftFileInput = v.InferOutput<typeof PutDraftFileInput>;

export const DeleteDraftEntryQuery = v.strictObject({
  path: v.string('path is required'),
  recursive: v.optional(v.picklist(['true', 'false'], 'recursive must be true or false'), 'false'),
});
export type DeleteDraftEntryQuery = v.InferOutput<typeof DeleteDraftEntryQuery>;

/**
 * `POST /skill-drafts/{id}/publish`: a blank draft creates a Skill and needs its `key` and
 * `displayName` here (they are Skill fields, not package content); a cloned draft publishes the
 * next version of its Skill and takes neither.
 */
export const PublishSkillDraftInput = v.optional(v.strictObject({ key: v.optional(SkillKey), displayName: v.optional(SkillDisplayName) }), {});
export type PublishSkillDraftInput = v.InferOutput<typeof PublishSkillDraftInput>;
