import type { skillDraftEntries, skillDrafts } from '../../db/schema/index.ts';
import { base64ByteLength } from '../../domain/skills/file.ts';

type DraftRow = typeof skillDrafts.$inferSelect;
type EntryRow = typeof skillDraftEntries.$inferSelect;

/** A draft in lists: its manifest fields, without instructions, folders or files. */
export type PublicSkillDraftSummary = {
  organizationId: string;
  projectId: string;
  id: string;
  /** The Skill a cloned draft publishes to; null for a blank draft (publishing creates a Skill). */
  skillId: string | null;
  sourceSkillVersionId: string | null;
  name: string | null;
  description: string | null;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: string[];
  createdAt: string;
  updatedAt: string;
};

export type PublicSkillDraftFile = { path: string; contentType: string; dataBase64: string; sizeBytes: number };

/** The whole staged package: metadata, instructions, folders (sorted) and files with bytes (sorted). */
export type PublicSkillDraft = PublicSkillDraftSummary & {
  instructions: string | null;
  directories: string[];
  files: PublicSkillDraftFile[];
};

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
