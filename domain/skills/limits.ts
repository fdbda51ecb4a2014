/**
 * Skill package limits (spec 1 "Skills" leaves them open; these are our decisions, recorded in
 * docs/decisions/skill-package-limits.md). Names follow the Agent Skills convention (SKILL.md frontmatter); sizes
 * bound one version row (all files live in one jsonb value) and one request body.
 */

/** `key`: project-unique identifier, the same rule as agent keys. */
export const SKILL_KEY_MAX_CHARS = 64;
/** `displayName`: presentation only. */
export const SKILL_DISPLAY_NAME_MAX_CHARS = 200;

/** Version `name` (Agent Skills: 1-64 chars, lowercase letters, digits, single inner hyphens). */
export const SKILL_NAME_MAX_CHARS = 64;
/** Version `description` (Agent Skills: 1-1,024 chars). */
export const SKILL_DESCRIPTION_MAX_CHARS = 1024;
/** Version `instructions`: the SKILL.md body; the same ceiling as Harness Operation instructions. */
export const SKILL_INSTRUCTIONS_MAX_CHARS = 100_000;
/** Optional `license` (single line). */
export const SKILL_LICENSE_MAX_CHARS = 500;
/** Optional `compatibility` (Agent Skills: at most 500 chars). */
export const SKILL_COMPATIBILITY_MAX_CHARS = 500;

/** `metadata`: a string → string map. */
export const SKILL_METADATA_MAX_ENTRIES = 64;
export const SKILL_METADATA_KEY_MAX_CHARS = 64;
export const SKILL_METADATA_VALUE_MAX_CHARS = 1024;

/** Informational `allowedTools` (rendered space-separated as `allowed-tools`, so no whitespace). */
export const SKILL_ALLOWED_TOOLS_MAX_ENTRIES = 64;
export const SKILL_ALLOWED_TOOL_MAX_CHARS = 200;

/** Package files (besides SKILL.md, which the manifest fields make up). */
export const SKILL_MAX_FILES = 100;
/** Decoded bytes per file. */
export const SKILL_FILE_MAX_BYTES = 1024 * 1024;
/** Decoded bytes of all files of one package. */
export const SKILL_PACKAGE_MAX_BYTES = 8 * 1024 * 1024;
/** Folders of one draft (published versions keep only files; folders are implied by paths). */
export const SKILL_DRAFT_MAX_DIRECTORIES = 100;

/** Package paths: total length, segments (folders + file name) and per-segment length. */
export const SKILL_PATH_MAX_CHARS = 255;
export const SKILL_PATH_MAX_DEPTH = 8;
export const SKILL_PATH_SEGMENT_MAX_CHARS = 100;

/** The only accepted file type for now: UTF-8 Markdown. */
export const SKILL_FILE_CONTENT_TYPE = 'text/markdown';
export const SKILL_FILE_EXTENSION = '.md';
/** The manifest file at the package root; made from the version fields, never uploaded. */
export const SKILL_MANIFEST_PATH = 'SKILL.md';

/**
 * Request body ceilings: base64 grows bytes by 4/3 and JSON escaping grows instructions, so a
 * full package (8 MiB of files + 100,000 chars) fits under 12 MiB, one file under 2 MiB.
 */
export const SKILL_VERSION_BODY_MAX_BYTES = 12 * 1024 * 1024;
export const SKILL_DRAFT_FILE_BODY_MAX_BYTES = 2 * 1024 * 1024;
export const SKILL_DRAFT_METADATA_BODY_MAX_BYTES = 2 * 1024 * 1024;
