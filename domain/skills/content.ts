import * as v from 'valibot';
import { canonicalJson } from '../canonical-json.ts';
import {
  allowedToolsProblems,
  compatibilityProblem,
  descriptionProblem,
  instructionsProblem,
  licenseProblem,
  metadataProblems,
  nameProblem,
  withThousands,
  type SkillProblem,
} from './fields.ts';
import { contentTypeProblem, fileDataProblem, type SkillPackageFile } from './file.ts';
import { SKILL_MAX_FILES, SKILL_PACKAGE_MAX_BYTES } from './limits.ts';
import { packagePathProblem, parentDirectories, pathIdentity } from './path.ts';

/** The content of one immutable Skill version, normalized (absent optionals are null, files sorted by path). */
export type SkillVersionContent = {
  name: string;
  description: string;
  instructions: string;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: string[];
  files: SkillPackageFile[];
};

export const SkillFileInput = v.strictObject({
  path: v.string('path must be a string'),
  contentType: v.string('contentType must be a string'),
  dataBase64: v.string('dataBase64 must be a string'),
});

/**
 * The version body's JSON shape (spec 2 "Skills"). Only types here: the rules live in
 * `versionContentProblems`, shared with drafts, so both report the same problems.
 */
export const SkillVersionBodyFields = {
  name: v.string('name must be a string'),
  description: v.string('description must be a string'),
  instructions: v.string('instructions must be a string'),
  license: v.optional(v.nullable(v.string('license must be a string or null'))),
  compatibility: v.optional(v.nullable(v.string('compatibility must be a string or null'))),
  metadata: v.optional(v.record(v.string(), v.string('metadata values must be strings'))),
  allowedTools: v.optional(v.array(v.string('allowedTools entries must be strings'))),
  files: v.optional(v.array(SkillFileInput)),
};
export const SkillVersionBody = v.strictObject(SkillVersionBodyFields);
export type SkillVersionBody = v.InferOutput<typeof SkillVersionBody>;

/** Fills defaults and sorts files by path (code-unit order) so equal packages look equal. */
export function normalizeVersionContent(body: SkillVersionBody): SkillVersionContent {
  return {
    name: body.name,
    description: body.description,
    instructions: body.instructions,
    license: body.license ?? null,
    compatibility: body.compatibility ?? null,
    metadata: { ...(body.metadata ?? {}) },
    allowedTools: [...(body.allowedTools ?? [])],
    files: sortFiles((body.files ?? []).map((file) => ({ path: file.path, contentType: file.contentType, dataBase64: file.dataBase64 }))),
  };
}

export function sortFiles<F extends { path: string }>(files: F[]): F[] {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Names a file in problem paths: `files.<index>` for request bodies, `files/<path>` for drafts. */
export type FileLocator = (file: SkillPackageFile, index: number) => string;
export const byIndex: FileLocator = (_file, index) => `files.${index}`;

/**
 * Every rule the content breaks, in field order: manifest fields, then each file (path,
 * content type, bytes), then package-wide rules (case-insensitive uniqueness, a file used as a
 * folder, file count, total size). Empty means publishable.
 */
export function versionContentProblems(content: SkillVersionContent, locate: FileLocator = byIndex): SkillProblem[] {
  const problems: SkillProblem[] = [];
  const field = (path: string, message: string | null) => message && problems.push({ path, message });
  field('name', nameProblem(content.name));
  field('description', descriptionProblem(content.description));
  field('instructions', instructionsProblem(content.instructions));
  field('license', licenseProblem(content.license));
  field('compatibility', compatibilityProblem(content.compatibility));
  problems.push(...metadataProblems(content.metadata), ...allowedToolsProblems(content.allowedTools));
  problems.push(...filesProblems(content.files, locate));
  return problems;
}

/** File and package-wide rules (also used by drafts, whose files arrive one at a time). */
export function filesProblems(files: SkillPackageFile[], locate: FileLocator = byIndex): SkillProblem[] {
  const problems: SkillProblem[] = [];
  const byIdentity = new Map<string, string>();
  let totalBytes = 0;
  files.forEach((file, index) => {
    const where = locate(file, index);
    const pathProblem = packagePathProblem(file.path, 'file');
    if (pathProblem) return void problems.push({ path: subPath(where, 'path'), message: `path ${pathProblem}` });
    const typeProblem = contentTypeProblem(file.contentType);
    if (typeProblem) problems.push({ path: subPath(where, 'contentType'), message: `contentType ${typeProblem}` });
    const data = fileDataProblem(file.dataBase64);
    totalBytes += data.size;
    if (data.problem) problems.push({ path: subPath(where, 'dataBase64'), message: `dataBase64 ${data.problem}` });
    const identity = pathIdentity(file.path);
    const earlier = byIdentity.get(identity);
    if (earlier !== undefined) problems.push({ path: subPath(where, 'path'), message: `path collides with "${earlier}" (paths are case-insensitive)` });
    else byIdentity.set(identity, file.path);
  });
  files.forEach((file, index) => {
    for (const folder of parentDirectories(file.path)) {
      const clash = byIdentity.get(pathIdentity(folder));
      if (clash !== undefined) {
        problems.push({ path: subPath(locate(file, index), 'path'), message: `path uses the file "${clash}" as a folder` });
        break;
      }
    }
  });
  if (files.length > SKILL_MAX_FILES) problems.push({ path: 'files', message: `must hold at most ${SKILL_MAX_FILES} files` });
  if (totalBytes > SKILL_PACKAGE_MAX_BYTES)
    problems.push({ path: 'files', message: `must hold at most ${withThousands(SKILL_PACKAGE_MAX_BYTES)} bytes in total` });
  return problems;
}

/** `files.3` + `path` → `files.3.path`; a draft locator (`files/a.md`) already names the file. */
function subPath(where: string, attribute: string): string {
  return where.startsWith('files/') ? where : `${where}.${attribute}`;
}

/**
 * The serialization the content hash is taken over: canonical JSON (sorted keys, no
 * whitespace) of the normalized content: `{allowedTools, compatibility, description, files:
 * [{contentType, dataBase64, path}] in path order, instructions, license, metadata, name}`, with
 * null for an absent license or compatibility. Canonical base64 makes it a function of the
 * exact bytes. SHA-256 of its UTF-8 encoding, lowercase hex, is the version's `contentHash`.
 */
export function canonicalVersionContent(content: SkillVersionContent): string {
  return canonicalJson({ ...content, files: sortFiles(content.files) });
}
