import * as v from 'valibot';
import { SKILL_VERSION_STATUSES } from '../skills/lifecycle.ts';
import { Id, page, Timestamp } from './common.ts';

/** Skills, their versions and drafts (spec 1 "Skills", spec 2 "Skills"). */
const VersionNumber = v.pipe(v.number(), v.integer(), v.minValue(1));
const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));
const Size = v.pipe(v.number(), v.integer(), v.minValue(0));
const Status = v.picklist(SKILL_VERSION_STATUSES);

/** The manifest fields every version and draft carries. */
const manifestFields = {
  license: v.nullable(v.string()),
  compatibility: v.nullable(v.string()),
  metadata: v.record(v.string(), v.string()),
  allowedTools: v.array(v.string()),
};

/** A file of a version manifest: everything but the bytes. */
export const SkillFileManifestShape = v.strictObject({ path: v.string(), contentType: v.string(), sizeBytes: Size, sha256: Sha256 });

/** A version's manifest: its content without instructions and file bytes (those come from export). */
export const PublicSkillVersionShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  skillId: Id,
  version: VersionNumber,
  name: v.string(),
  description: v.string(),
  ...manifestFields,
  files: v.array(SkillFileManifestShape),
  contentHash: Sha256,
  status: Status,
  createdByPrincipalId: v.nullable(Id),
  createdAt: Timestamp,
});

export const PublicSkillShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  key: v.string(),
  displayName: v.string(),
  enabled: v.boolean(),
  disabledAt: v.nullable(Timestamp),
  /** The highest-numbered version, whatever its lifecycle status. */
  latestVersion: v.nullable(PublicSkillVersionShape),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const SkillPageShape = page(PublicSkillShape);
export const SkillDetailShape = v.strictObject({ ...PublicSkillShape.entries, versions: v.array(PublicSkillVersionShape) });
/** `PATCH /skills/{id}` answers only the enablement. */
export const SkillEnablementShape = v.strictObject({ id: Id, key: v.string(), enabled: v.boolean(), disabledAt: v.nullable(Timestamp) });
export const SkillDeletedShape = v.strictObject({ id: Id, key: v.string(), deleted: v.literal(true) });

/** A package file with its bytes. */
export const SkillPackageFileShape = v.strictObject({ path: v.string(), contentType: v.string(), dataBase64: v.string() });

/** `GET .../export`: the exact content of a version, plus its rendered SKILL.md. */
export const SkillVersionExportShape = v.strictObject({
  skillId: Id,
  skillVersionId: Id,
  version: VersionNumber,
  contentHash: Sha256,
  status: Status,
  name: v.string(),
  description: v.string(),
  instructions: v.string(),
  ...manifestFields,
  files: v.array(SkillPackageFileShape),
  skillMd: v.string(),
});

/** A draft in lists: its manifest fields, without instructions, folders or files. */
export const PublicSkillDraftSummaryShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  /** The Skill a cloned draft publishes to; null for a blank draft (publishing creates a Skill). */
  skillId: v.nullable(Id),
  sourceSkillVersionId: v.nullable(Id),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  ...manifestFields,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const SkillDraftPageShape = page(PublicSkillDraftSummaryShape);

/** The whole staged package: metadata, instructions, folders (sorted) and files with bytes (sorted). */
export const PublicSkillDraftShape = v.strictObject({
  ...PublicSkillDraftSummaryShape.entries,
  instructions: v.nullable(v.string()),
  directories: v.array(v.string()),
  files: v.array(v.strictObject({ ...SkillPackageFileShape.entries, sizeBytes: Size })),
});
export const SkillDraftDiscardedShape = v.strictObject({ id: Id, deleted: v.literal(true) });
export const CreatedDirectoryShape = v.strictObject({
  path: v.string(),
  kind: v.literal('directory'),
  created: v.boolean(),
  createdPaths: v.array(v.string()),
});
export const PutFileResultShape = v.strictObject({
  path: v.string(),
  kind: v.literal('file'),
  contentType: v.string(),
  sizeBytes: Size,
  created: v.boolean(),
  createdDirectories: v.array(v.string()),
});
export const DeletedEntryShape = v.strictObject({
  path: v.string(),
  kind: v.picklist(['file', 'directory']),
  deleted: v.literal(true),
  deletedPaths: v.array(v.string()),
});
/** Always a 200: the problems are the answer; a valid draft also gets the content hash it would publish with. */
export const SkillDraftValidationShape = v.strictObject({
  valid: v.boolean(),
  problems: v.array(v.strictObject({ path: v.string(), message: v.string() })),
  contentHash: v.nullable(Sha256),
});
export const PublishedSkillDraftShape = v.strictObject({ draftId: Id, skill: PublicSkillShape, version: PublicSkillVersionShape });
