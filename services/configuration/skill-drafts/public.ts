import type * as v from 'valibot';
import type { PublicSkillDraftShape, PublicSkillDraftSummaryShape } from '../../../domain/public-shapes/skills.ts';
import type { skillDraftEntries, skillDrafts } from '../../../db/schema/index.ts';
import { base64ByteLength } from '../../../domain/skills/file.ts';

type DraftRow = typeof skillDrafts.$inferSelect;
type EntryRow = typeof skillDraftEntries.$inferSelect;

/** A draft in lists: its manifest fields, without instructions, folders or files. */
export type PublicSkillDraftSummary = v.InferOutput<typeof PublicSkillDraftSummaryShape>;

export type PublicSkillDraftFile = { path: string; contentType: string; dataBase64: string; sizeBytes: number };

/** The whole staged package: metadata, instructions, folders (sorted) and files with bytes (sorted). */
export type PublicSkillDraft = v.InferOutput<typeof PublicSkillDraftShape>;

export const toSkillDraftSummary = (row: DraftRow): PublicSkillDraftSummary => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  skillId: row.skillId,
  sourceSkillVersionId: row.sourceSkillVersionId,
  name: row.name,
  description: row.description,
  license: row.license,
  compatibility: row.compatibility,
  metadata: row.metadata,
  allowedTools: row.allowedTools,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toSkillDraftResponse = (row: DraftRow, entries: EntryRow[]): PublicSkillDraft => {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    ...toSkillDraftSummary(row),
    instructions: row.instructions,
    directories: sorted.filter((entry) => entry.kind === 'directory').map((entry) => entry.path),
    files: sorted
      .filter((entry) => entry.kind === 'file')
      .map((entry) => ({ path: entry.path, contentType: entry.contentType!, dataBase64: entry.dataBase64!, sizeBytes: base64ByteLength(entry.dataBase64!) })),
  };
};
