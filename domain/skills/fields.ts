import {
  SKILL_ALLOWED_TOOL_MAX_CHARS,
  SKILL_ALLOWED_TOOLS_MAX_ENTRIES,
  SKILL_COMPATIBILITY_MAX_CHARS,
  SKILL_DESCRIPTION_MAX_CHARS,
  SKILL_INSTRUCTIONS_MAX_CHARS,
  SKILL_LICENSE_MAX_CHARS,
  SKILL_METADATA_KEY_MAX_CHARS,
  SKILL_METADATA_MAX_ENTRIES,
  SKILL_METADATA_VALUE_MAX_CHARS,
  SKILL_NAME_MAX_CHARS,
} from './limits.ts';
import { multiLineProblem, singleLineProblem } from './text.ts';

/** One rule a package breaks: `path` locates it (a field, `metadata.<key>`, a file), `message` says what. */
export type SkillProblem = { path: string; message: string };

/** Agent Skills `name`: lowercase letters and digits, single inner hyphens. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const METADATA_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Each checker returns its first problem's message, or null. */
export function nameProblem(name: string): string | null {
  if (name.length < 1 || name.length > SKILL_NAME_MAX_CHARS) return `must be 1-${SKILL_NAME_MAX_CHARS} characters`;
  if (!SKILL_NAME_PATTERN.test(name)) return 'must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen';
  return null;
}

export function descriptionProblem(description: string): string | null {
  return boundedText(description, 1, SKILL_DESCRIPTION_MAX_CHARS, 'multi');
}

export function instructionsProblem(instructions: string): string | null {
  return boundedText(instructions, 1, SKILL_INSTRUCTIONS_MAX_CHARS, 'multi');
}

/** `null` means "not set"; a set license is one line. */
export function licenseProblem(license: string | null): string | null {
  return license === null ? null : boundedText(license, 1, SKILL_LICENSE_MAX_CHARS, 'single');
}

export function compatibilityProblem(compatibility: string | null): string | null {
  return compatibility === null ? null : boundedText(compatibility, 1, SKILL_COMPATIBILITY_MAX_CHARS, 'multi');
}

/** Problems of the `metadata` map, located at `metadata` or `metadata.<key>`. */
export function metadataProblems(metadata: Record<string, string>): SkillProblem[] {
  const entries = Object.entries(metadata);
  if (entries.length > SKILL_METADATA_MAX_ENTRIES) return [{ path: 'metadata', message: `must have at most ${SKILL_METADATA_MAX_ENTRIES} entries` }];
  const problems: SkillProblem[] = [];
  for (const [key, value] of entries) {
    const path = `metadata.${key}`;
    if (key.length > SKILL_METADATA_KEY_MAX_CHARS || !METADATA_KEY_PATTERN.test(key)) {
      problems.push({
        path,
        message: `keys must be 1-${SKILL_METADATA_KEY_MAX_CHARS} characters of letters, digits, ".", "_" and "-", starting with a letter or digit`,
      });
      continue;
    }
    const problem = boundedText(value, 0, SKILL_METADATA_VALUE_MAX_CHARS, 'multi');
    if (problem) problems.push({ path, message: problem });
  }
  return problems;
}

/**
 * Problems of `allowedTools`, located at `allowedTools` or `allowedTools.<index>`. Entries are
 * informational tool patterns (`Read`, `Bash(git:*)`); SKILL.md lists them space-separated,
 * so they hold no whitespace, and they are unique.
 */
export function allowedToolsProblems(allowedTools: string[]): SkillProblem[] {
  if (allowedTools.length > SKILL_ALLOWED_TOOLS_MAX_ENTRIES)
    return [{ path: 'allowedTools', message: `must have at most ${SKILL_ALLOWED_TOOLS_MAX_ENTRIES} entries` }];
  const problems: SkillProblem[] = [];
  const seen = new Set<string>();
  allowedTools.forEach((tool, index) => {
    const path = `allowedTools.${index}`;
    const problem = boundedText(tool, 1, SKILL_ALLOWED_TOOL_MAX_CHARS, 'single') ?? (/\s/.test(tool) ? 'must not contain whitespace' : null);
    if (problem) problems.push({ path, message: problem });
    else if (seen.has(tool)) problems.push({ path, message: 'must not repeat an earlier entry' });
    seen.add(tool);
  });
  return problems;
}

function boundedText(value: string, min: number, max: number, lines: 'single' | 'multi'): string | null {
  if (value.length < min) return 'must not be empty';
  if (value.length > max) return `must be at most ${withThousands(max)} characters`;
  return lines === 'single' ? singleLineProblem(value) : multiLineProblem(value);
}

/** 100000 → "100,000", without locale data. */
export function withThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
