import { normalizeVersionContent, versionContentProblems, type FileLocator, type SkillVersionContent } from './content.ts';
import type { SkillProblem } from './fields.ts';
import type { SkillPackageFile } from './file.ts';
import { SKILL_DRAFT_MAX_DIRECTORIES } from './limits.ts';
import { packagePathProblem } from './path.ts';

/** A draft's manifest fields; the required ones may still be unset (null). */
export type DraftFields = {
  name: string | null;
  description: string | null;
  instructions: string | null;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: string[];
};

/** Draft problems name files by package path: `files/references/guide.md`. */
export const byPackagePath: FileLocator = (file) => `files/${file.path}`;

const REQUIRED = ['name', 'description', 'instructions'] as const;

/** The version content a draft would publish (folders are dropped: versions keep only files). */
export function draftContent(fields: DraftFields, files: SkillPackageFile[]): SkillVersionContent {
  return normalizeVersionContent({
    ...fields,
    name: fields.name ?? '',
    description: fields.description ?? '',
    instructions: fields.instructions ?? '',
    files,
  });
}

/**
 * Everything that keeps a draft from publishing, in the order publication reports them:
 * unset required fields ("is required"), then the version rules, then folder rules.
 */
export function draftProblems(fields: DraftFields, files: SkillPackageFile[], directories: string[]): SkillProblem[] {
  const unset = new Set<string>(REQUIRED.filter((field) => fields[field] === null));
  const problems = versionContentProblems(draftContent(fields, files), byPackagePath).map((problem) =>
    unset.has(problem.path) ? { path: problem.path, message: 'is required' } : problem,
  );
  for (const directory of directories) {
    const problem = packagePathProblem(directory, 'directory');
    if (problem) problems.push({ path: `directories/${directory}`, message: `path ${problem}` });
  }
  if (directories.length > SKILL_DRAFT_MAX_DIRECTORIES)
    problems.push({ path: 'directories', message: `must hold at most ${SKILL_DRAFT_MAX_DIRECTORIES} folders` });
  return problems;
}
