import type * as v from 'valibot';
import type {
  PublicSkillShape,
  PublicSkillVersionShape,
  SkillDetailShape,
  SkillFileManifestShape,
  SkillVersionExportShape,
} from '../../../domain/public-shapes/skills.ts';
import { sql } from 'drizzle-orm';
import { skills, skillVersions } from '../../../db/schema/index.ts';

type SkillRow = typeof skills.$inferSelect;

/** A file of a version manifest: everything but the bytes. */
export type PublicSkillFileManifest = v.InferOutput<typeof SkillFileManifestShape>;

/** A version's manifest: its content without instructions and file bytes (those come from export). */
export type PublicSkillVersion = v.InferOutput<typeof PublicSkillVersionShape>;

export type PublicSkill = v.InferOutput<typeof PublicSkillShape>;

export type PublicSkillDetail = v.InferOutput<typeof SkillDetailShape>;

/** `GET .../export`: the exact content of a version, plus its rendered SKILL.md. */
export type PublicSkillVersionExport = v.InferOutput<typeof SkillVersionExportShape>;

/**
 * Version columns for manifests. The file list is computed in the database (size and SHA-256
 * of each decoded file) so listing versions never ships file bytes to the API process.
 */
export const versionManifestColumns = {
  organizationId: skillVersions.organizationId,
  projectId: skillVersions.projectId,
  id: skillVersions.id,
  skillId: skillVersions.skillId,
  version: skillVersions.version,
  name: skillVersions.name,
  description: skillVersions.description,
  license: skillVersions.license,
  compatibility: skillVersions.compatibility,
  metadata: skillVersions.metadata,
  allowedTools: skillVersions.allowedTools,
  contentHash: skillVersions.contentHash,
  status: skillVersions.status,
  createdByPrincipalId: skillVersions.createdByPrincipalId,
  createdAt: skillVersions.createdAt,
  fileManifest: sql<PublicSkillFileManifest[]>`(
    select coalesce(jsonb_agg(jsonb_build_object(
      'path', f.value ->> 'path',
      'contentType', f.value ->> 'contentType',
      'sizeBytes', length(decode(f.value ->> 'dataBase64', 'base64')),
      'sha256', encode(sha256(decode(f.value ->> 'dataBase64', 'base64')), 'hex')
    ) order by f.ord), '[]'::jsonb)
    from jsonb_array_elements(${skillVersions.files}) with ordinality as f(value, ord)
  )`.mapWith((value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as PublicSkillFileManifest[]),
};

export type VersionManifestRow = {
  [K in keyof typeof versionManifestColumns]: K extends 'fileManifest'
    ? PublicSkillFileManifest[]
    : (typeof skillVersions.$inferSelect)[K & keyof typeof skillVersions.$inferSelect];
};

export const toSkillVersionResponse = (row: VersionManifestRow): PublicSkillVersion => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  skillId: row.skillId,
  version: row.version,
  name: row.name,
  description: row.description,
  license: row.license,
  compatibility: row.compatibility,
  metadata: row.metadata,
  allowedTools: row.allowedTools,
  files: row.fileManifest.map((file) => ({ path: file.path, contentType: file.contentType, sizeBytes: Number(file.sizeBytes), sha256: file.sha256 })),
  contentHash: row.contentHash,
  status: row.status,
  createdByPrincipalId: row.createdByPrincipalId,
  createdAt: row.createdAt.toISOString(),
});

export const toSkillResponse = (row: SkillRow, latestVersion: PublicSkillVersion | null): PublicSkill => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  key: row.key,
  displayName: row.displayName,
  enabled: row.enabled,
  disabledAt: row.disabledAt?.toISOString() ?? null,
  latestVersion,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toSkillDetailResponse = (row: SkillRow, versions: PublicSkillVersion[]): PublicSkillDetail => ({
  ...toSkillResponse(row, versions.find((version) => version.version === row.latestVersion) ?? null),
  versions,
});

/** `PATCH /skills/{id}` answers only the enablement (spec 2). */
export const toSkillEnablementResponse = (row: SkillRow) => ({
  id: row.id,
  key: row.key,
  enabled: row.enabled,
  disabledAt: row.disabledAt?.toISOString() ?? null,
});
