import { draftContent, draftProblems } from '../../../domain/skills/draft-package.ts';
import type { SkillProblem } from '../../../domain/skills/fields.ts';
import type { SkillVersionContent } from '../../../domain/skills/content.ts';
import type { DraftRow, EntryRow } from './load.ts';

/** The version a draft would publish, and everything that stops it. */
export function stagedPackage(draft: DraftRow, entries: EntryRow[]): { content: SkillVersionContent; problems: SkillProblem[] } {
  const files = entries
    .filter((entry) => entry.kind === 'file')
    .map((entry) => ({ path: entry.path, contentType: entry.contentType ?? '', dataBase64: entry.dataBase64 ?? '' }));
  const directories = entries.filter((entry) => entry.kind === 'directory').map((entry) => entry.path);
  const fields = {
    name: draft.name,
    description: draft.description,
    instructions: draft.instructions,
    license: draft.license,
    compatibility: draft.compatibility,
    metadata: draft.metadata,
    allowedTools: draft.allowedTools,
  };
  return { content: draftContent(fields, files), problems: draftProblems(fields, files, directories.sort()) };
}
