import { ValidationError } from '../../../domain/errors.ts';
import type { SkillProblem } from '../../../domain/skills/fields.ts';
import { versionContentProblems, type FileLocator, type SkillVersionContent } from '../../../domain/skills/content.ts';

/**
 * Throws a `bad_request` for the first problem of a package about to be published, with
 * `details.path` (prefixed, e.g. `body.files.2.path`) and up to ten `details.issues`.
 */
export function assertPublishableContent(content: SkillVersionContent, options: { prefix: string; locate?: FileLocator }): void {
  throwProblems(versionContentProblems(content, options.locate), options.prefix);
}

export function throwProblems(problems: SkillProblem[], prefix: string): void {
  if (problems.length === 0) return;
  const issues = problems.slice(0, 10).map((problem) => ({ path: prefix ? `${prefix}.${problem.path}` : problem.path, message: problem.message }));
  const first = issues[0]!;
  throw new ValidationError(`Invalid Skill package: ${first.path}: ${first.message}`, { path: first.path, issues });
}
