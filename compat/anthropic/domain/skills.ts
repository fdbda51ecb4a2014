import * as v from 'valibot';
import { parseDocument } from 'yaml';
import { ValidationError } from '../../../domain/errors.ts';
import { normalizeVersionContent, versionContentProblems, type SkillVersionBody } from '../../../domain/skills/content.ts';
import type { SkillProblem } from '../../../domain/skills/fields.ts';
import { decodeCanonicalBase64, encodeBase64 } from '../../../domain/skills/file.ts';
import { SKILL_FILE_CONTENT_TYPE, SKILL_FILE_MAX_BYTES, SKILL_MANIFEST_PATH } from '../../../domain/skills/limits.ts';
import { pathIdentity } from '../../../domain/skills/path.ts';
import { SkillDisplayName } from '../../../domain/skills/skill.ts';

/**
 * Claude Managed Agents Skills over ours (docs/decisions/anthropic-compat-skill-uploads.md): the
 * uploaded files (`files[]` parts named `<dir>/<path>`) become one version body of ours, and our
 * Skills and versions are rendered back as `BetaSkill` / `BetaSkillVersion`. Every package rule
 * is the core's (`versionContentProblems`); this only locates its problems in the upload.
 */

/** One `files[]` part: its filename (a relative path, `my-skill/SKILL.md`) and bytes. */
export type SkillUpload = { filename: string; bytes: Uint8Array };

/** What a SKILL.md holds: the frontmatter fields (name absent = the enclosing directory's) and the body. */
export type SkillMdFields = {
  name: string | null;
  description: string;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: string[];
  instructions: string;
};

const FRONTMATTER_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'] as const;
// `---` alone on the first line, then the YAML (possibly empty), then `---` alone on a line.
const FRONTMATTER = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * Parses a SKILL.md (the Agent Skills convention): YAML frontmatter between `---` lines with
 * `name`, `description`, `license`, `compatibility`, `metadata` (a map of strings) and
 * `allowed-tools` (space-separated, or a list), then the body, kept exactly as the instructions
 * (so `renderSkillMd` gives back the same text). Scalars are read as text (YAML's failsafe
 * schema: `version: 1.0` stays "1.0"); an empty optional value is unset. Any other key is a
 * problem, as in the Agent Skills reference validator. Returns the fields or the first problem.
 */
export function parseSkillMd(text: string): { fields: SkillMdFields; problem?: never } | { problem: string; fields?: never } {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const match = FRONTMATTER.exec(source);
  if (!match) return { problem: 'must start with YAML frontmatter between "---" lines' };
  // Warnings (an unknown tag) are not problems: failsafe reads every scalar as text anyway.
  const document = parseDocument(match[1] ?? '', { schema: 'failsafe', logLevel: 'silent' });
  const error = document.errors[0];
  // The frontmatter starts on line 2 of the file.
  if (error) return { problem: `frontmatter is not valid YAML${error.linePos ? ` (line ${error.linePos[0].line + 1})` : ''}` };
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch {
    return { problem: 'frontmatter uses too many YAML aliases' };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) return { problem: 'frontmatter must be a map of keys' };
  const map = data as Record<string, unknown>;
  const unknown = Object.keys(map).find((key) => !(FRONTMATTER_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) return { problem: `frontmatter key "${unknown}" is not one of ${FRONTMATTER_KEYS.join(', ')}` };

  for (const key of ['name', 'description', 'license', 'compatibility'] as const) {
    if (map[key] !== undefined && typeof map[key] !== 'string') return { problem: `frontmatter ${key} must be text` };
  }
  const optional = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const metadata: Record<string, string> = {};
  if (map.metadata !== undefined && map.metadata !== '') {
    if (typeof map.metadata !== 'object' || map.metadata === null || Array.isArray(map.metadata))
      return { problem: 'frontmatter metadata must be a map of text values' };
    for (const [key, value] of Object.entries(map.metadata)) {
      if (typeof value !== 'string') return { problem: `frontmatter metadata.${key} must be text` };
      metadata[key] = value;
    }
  }
  const tools = map['allowed-tools'];
  let allowedTools: string[] = [];
  if (typeof tools === 'string') allowedTools = tools.split(/\s+/).filter((tool) => tool !== '');
  else if (Array.isArray(tools) && tools.every((tool) => typeof tool === 'string')) allowedTools = tools as string[];
  else if (tools !== undefined) return { problem: 'frontmatter allowed-tools must be text (space-separated) or a list of text' };

  return {
    fields: {
      name: optional(map.name),
      description: typeof map.description === 'string' ? map.description : '',
      license: optional(map.license),
      compatibility: optional(map.compatibility),
      metadata,
      allowedTools,
      instructions: source.slice(match[0].length),
    },
  };
}

const FILES = 'files[]';
const refuse = (message: string, issues?: Array<{ path: string; message: string }>): never => {
  throw new ValidationError(`${FILES}: ${message}`, { path: `body.${FILES}`, ...(issues ? { issues } : {}) });
};

/**
 * The version body of ours an upload amounts to, and the Skill name it declares. The files must
 * share one top-level directory with `SKILL.md` at its root; that directory is stripped from
 * every path. SKILL.md becomes the manifest fields and instructions (its `name`, else the
 * directory's), every other file a `text/markdown` file of the package. The core's package rules
 * then apply, each problem located at the uploaded file or SKILL.md field it concerns (a non-`.md`
 * file is refused by our core: only UTF-8 Markdown files are supported).
 */
export function skillBodyOf(uploads: SkillUpload[]): { name: string; body: SkillVersionBody } {
  if (uploads.length === 0) refuse(`upload the Skill's files, with ${SKILL_MANIFEST_PATH} at the root of one directory`);
  const split = uploads.map((upload) => {
    const slash = upload.filename.indexOf('/');
    if (slash <= 0 || slash === upload.filename.length - 1)
      refuse(`"${upload.filename}" must be a path inside the Skill's top-level directory (like "my-skill/${SKILL_MANIFEST_PATH}")`);
    return { ...upload, top: upload.filename.slice(0, slash), path: upload.filename.slice(slash + 1) };
  });
  const top = split[0]!.top;
  const stray = split.find((file) => file.top !== top);
  if (stray) refuse(`all files must share one top-level directory ("${top}/" and "${stray.filename}")`);
  const manifests = split.filter((file) => pathIdentity(file.path) === pathIdentity(SKILL_MANIFEST_PATH));
  if (manifests.length === 0) refuse(`"${top}/${SKILL_MANIFEST_PATH}" is missing: ${SKILL_MANIFEST_PATH} must sit at the root of the top-level directory`);
  if (manifests.length > 1) refuse(`"${top}/" holds ${SKILL_MANIFEST_PATH} more than once`);
  const manifest = manifests[0]!;
  if (manifest.bytes.length > SKILL_FILE_MAX_BYTES) refuse(`"${manifest.filename}" must be at most ${SKILL_FILE_MAX_BYTES} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(manifest.bytes);
  } catch {
    return refuse(`"${manifest.filename}" must be UTF-8 text`);
  }
  const parsed = parseSkillMd(text);
  if (parsed.problem !== undefined) return refuse(`"${manifest.filename}": ${parsed.problem}`);
  const { name, ...fields } = parsed.fields;
  const others = split.filter((file) => file !== manifest);
  const body: SkillVersionBody = {
    ...fields,
    name: name ?? top,
    files: others.map((file) => ({ path: file.path, contentType: SKILL_FILE_CONTENT_TYPE, dataBase64: encodeBase64(file.bytes) })),
  };
  const uploadedAs = new Map(others.map((file) => [file.path, file.filename]));
  const problems = versionContentProblems(normalizeVersionContent(body), (file) => `files/${uploadedAs.get(file.path) ?? file.path}`);
  if (problems.length > 0) {
    const issues = problems.slice(0, 10).map((problem) => locatedProblem(problem, manifest.filename));
    refuse(issues[0]!.message, issues);
  }
  return { name: body.name, body };
}

// Our field names as SKILL.md spells them.
const FIELD_NAMES: Record<string, string> = { allowedTools: 'allowed-tools', instructions: 'body (the instructions after the frontmatter)' };

/** A core problem as the uploader sees it: the file (`files/<filename>`) or the SKILL.md field. */
function locatedProblem(problem: SkillProblem, manifest: string): { path: string; message: string } {
  if (problem.path.startsWith('files/')) {
    const filename = problem.path.slice('files/'.length);
    // The core names the attribute of its JSON file entry; here the subject is the file itself.
    return { path: `${FILES}.${filename}`, message: `"${filename}" ${problem.message.replace(/^(path|contentType|dataBase64) /, '')}` };
  }
  if (problem.path === 'files') return { path: FILES, message: problem.message };
  const [field, ...rest] = problem.path.split('.');
  const named = [FIELD_NAMES[field!] ?? field, ...rest].join('.');
  return { path: `${FILES}.${manifest}.${named}`, message: `"${manifest}" ${named} ${problem.message}` };
}

/** `display_name` (absent: the Skill's name), under our display-name rule; a 400 naming the field otherwise. */
export function displayNameOf(raw: string | undefined, name: string): string {
  const result = v.safeParse(SkillDisplayName, raw ?? name);
  if (!result.success) throw new ValidationError(`display_name: ${result.issues[0].message.replace(/^displayName /, '')}`, { path: 'body.display_name' });
  return result.output;
}

/** `BetaSkill`: ours are always `custom`. */
export function renderSkill(skill: { id: string; displayName: string; latestVersionId: string; createdAt: string; updatedAt: string }) {
  return {
    id: skill.id,
    type: 'skill' as const,
    display_name: skill.displayName,
    latest_version_id: skill.latestVersionId,
    source: { type: 'custom' as const },
    created_at: skill.createdAt,
    updated_at: skill.updatedAt,
  };
}
export type CmaSkill = ReturnType<typeof renderSkill>;

/** `BetaSkillVersion`: the version id is ours; `name` and `description` as of the version. */
export function renderSkillVersion(version: { id: string; skillId: string; name: string; description: string; createdAt: string }) {
  return {
    id: version.id,
    type: 'skill_version' as const,
    skill_id: version.skillId,
    name: version.name,
    description: version.description,
    created_at: version.createdAt,
  };
}
export type CmaSkillVersion = ReturnType<typeof renderSkillVersion>;

/**
 * The newest version a CMA client sees as the Skill's latest: revoked versions are deleted for
 * it. When every version is revoked, the newest one (`latest_version_id` is always set).
 */
export function latestVisibleVersion<V extends { version: number; status: string }>(versions: V[]): V | undefined {
  const newestFirst = [...versions].sort((a, b) => b.version - a.version);
  return newestFirst.find((version) => version.status !== 'revoked') ?? newestFirst[0];
}

/** A page of an in-memory list: `page` is an opaque offset this server gave (`next_page`). */
export function offsetPage<T>(all: T[], input: { limit: number; page: string | undefined }): { data: T[]; next_page: string | null } {
  let offset = 0;
  if (input.page !== undefined) {
    try {
      offset = /^[0-9]{1,9}$/.test(atob(input.page)) ? Number(atob(input.page)) : -1;
    } catch {
      offset = -1;
    }
  }
  if (offset < 0) throw new ValidationError('page is not a cursor this server gave', { path: 'query.page' });
  const next = offset + input.limit;
  return { data: all.slice(offset, next), next_page: next < all.length ? btoa(String(next)) : null };
}

/** The entries of a version's download: `<name>/SKILL.md` (rendered by the core), then every file. */
export function skillArchiveEntries(exported: {
  name: string;
  skillMd: string;
  files: Array<{ path: string; dataBase64: string }>;
}): Array<{ path: string; bytes: Uint8Array }> {
  return [
    { path: `${exported.name}/${SKILL_MANIFEST_PATH}`, bytes: new TextEncoder().encode(exported.skillMd) },
    ...exported.files.map((file) => ({ path: `${exported.name}/${file.path}`, bytes: decodeCanonicalBase64(file.dataBase64) ?? new Uint8Array() })),
  ];
}

/**
 * A zip archive of `entries`, stored (no compression: the Skill files are small text, and a
 * stored zip needs no deflate), UTF-8 names (general-purpose flag bit 11), every entry dated
 * `modified` (UTC). Small enough for a Skill package: no zip64 (at most 8 MiB, 101 entries).
 */
export function storedZip(entries: Array<{ path: string; bytes: Uint8Array }>, modified: Date): Uint8Array {
  const { time, date } = dosDateTime(modified);
  const encoder = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = encoder.encode(entry.path);
    const crc = crc32(entry.bytes);
    const local = new Uint8Array(30 + name.length);
    const l = new DataView(local.buffer);
    l.setUint32(0, 0x04034b50, true); // local file header
    l.setUint16(4, 20, true); // version needed: 2.0
    l.setUint16(6, 0x0800, true); // UTF-8 names
    l.setUint16(8, 0, true); // stored
    l.setUint16(10, time, true);
    l.setUint16(12, date, true);
    l.setUint32(14, crc, true);
    l.setUint32(18, entry.bytes.length, true);
    l.setUint32(22, entry.bytes.length, true);
    l.setUint16(26, name.length, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const c = new DataView(central.buffer);
    c.setUint32(0, 0x02014b50, true); // central directory header
    c.setUint16(4, 20, true); // made by: 2.0
    c.setUint16(6, 20, true);
    c.setUint16(8, 0x0800, true);
    c.setUint16(10, 0, true);
    c.setUint16(12, time, true);
    c.setUint16(14, date, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, entry.bytes.length, true);
    c.setUint32(24, entry.bytes.length, true);
    c.setUint16(28, name.length, true);
    c.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, entry.bytes);
    centrals.push(central);
    offset += local.length + entry.bytes.length;
  }
  const centralSize = centrals.reduce((sum, part) => sum + part.length, 0);
  const end = new Uint8Array(22);
  const e = new DataView(end.buffer);
  e.setUint32(0, 0x06054b50, true); // end of central directory
  e.setUint16(8, entries.length, true);
  e.setUint16(10, entries.length, true);
  e.setUint32(12, centralSize, true);
  e.setUint32(16, offset, true);
  const parts = [...locals, ...centrals, end];
  const zip = new Uint8Array(offset + centralSize + end.length);
  let at = 0;
  for (const part of parts) {
    zip.set(part, at);
    at += part.length;
  }
  return zip;
}

function dosDateTime(moment: Date): { time: number; date: number } {
  const year = Math.max(1980, moment.getUTCFullYear());
  return {
    time: (moment.getUTCHours() << 11) | (moment.getUTCMinutes() << 5) | Math.floor(moment.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((moment.getUTCMonth() + 1) << 5) | moment.getUTCDate(),
  };
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309, the zip checksum). */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
