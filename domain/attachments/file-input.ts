import type { SandboxCapability } from '../agent-config/config-schema.ts';
import { base64Length, checkCanonicalBase64 } from './base64.ts';
import { resolveFileKind, type FileClass } from './file-kinds.ts';
import { extensionOf, fileNameKey, fileNameProblem } from './file-name.ts';
import { mediaTypeEssence } from './media-type.ts';
import { quote, truncated } from './quote.ts';
import { isUuid } from '../uuid.ts';

/**
 * The `files` of session and turn bodies (spec 2 "File input item", spec 3 "Limits"), checked
 * without decoding: the caller decodes `dataBase64` of accepted files and hashes the bytes.
 *
 * Choices (docs/decisions/attachment-file-rules.md):
 * - `files` is an array of 0-8 items; an empty array means no files.
 * - Items are strict objects of exactly `name`, `contentType`, `dataBase64`, all strings, or of
 *   exactly `uploadId` (a standalone upload, resolved by the service, which then checks names and
 *   the total across every file with `turnFileSetProblem`).
 * - The first violation wins, in order: the array, then each item (unknown fields, `name`
 *   including uniqueness, `contentType`, `dataBase64`), then the running total after that item.
 * - Empty files (0 bytes) are accepted, whatever the kind: nothing here reads content.
 * - Messages may quote a filename or declared type (at most 100 characters, escaped), never
 *   the data.
 */

export const MAX_FILES_PER_TURN = 8;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** A session or turn body: 20 MiB of files as base64 (~27 MiB), the message and JSON around them. */
export const MAX_TURN_BODY_BYTES = 30 * 1024 * 1024;
export const MAX_TURN_FILE_BYTES = 20 * 1024 * 1024;

/**
 * The user text recorded for a turn that sends files without text (spec 2 "Turn body"). Neutral
 * on purpose: it states a fact and asks nothing of the model.
 */
export const NEUTRAL_FILES_MESSAGE = 'Attached files.';

export type FileInputItem = { name: string; contentType: string; dataBase64: string };

export type AcceptedFile = {
  name: string;
  /** The canonical media type of the file's kind. */
  contentType: string;
  fileClass: FileClass;
  sizeBytes: number;
  dataBase64: string;
};

/** A turn file given by the id of a standalone upload (`POST /uploads`). */
export type UploadRef = { uploadId: string };

/** One item of a turn's `files`: bytes inline, or an upload named by id. */
export type TurnFileInput = AcceptedFile | UploadRef;

export const isUploadRef = (file: TurnFileInput): file is UploadRef => 'uploadId' in file;

export type FileRuleViolation = { path: string; message: string };

export type FileInputsCheck = { ok: true; files: TurnFileInput[] } | { ok: false; violation: FileRuleViolation };

const FIELDS = ['name', 'contentType', 'dataBase64'] as const;

/** Checks a body's `files` value; `pathPrefix` (default `files`) starts every violation path. */
export function checkFileInputs(files: unknown, options: { pathPrefix?: string } = {}): FileInputsCheck {
  const prefix = options.pathPrefix ?? 'files';
  if (!Array.isArray(files)) return violation(prefix, 'must be an array');
  if (files.length > MAX_FILES_PER_TURN) return violation(prefix, `must hold at most ${MAX_FILES_PER_TURN} files (${grouped(files.length)} given)`);
  const accepted: TurnFileInput[] = [];
  const earlierNames = new Map<string, number>();
  let totalBytes = 0;
  for (let index = 0; index < files.length; index++) {
    const item: unknown = files[index];
    if (typeof item === 'object' && item !== null && Object.hasOwn(item, 'uploadId')) {
      const ref = checkUploadRef(item as Record<string, unknown>, `${prefix}.${index}`);
      if (!ref.ok) return ref;
      accepted.push(ref.ref);
      continue;
    }
    const checked = checkItem(item, `${prefix}.${index}`, earlierNames, prefix);
    if (!checked.ok) return checked;
    earlierNames.set(fileNameKey(checked.file.name), index);
    totalBytes += checked.file.sizeBytes;
    if (totalBytes > MAX_TURN_FILE_BYTES) {
      return violation(
        prefix,
        `must total at most ${grouped(MAX_TURN_FILE_BYTES)} bytes (20 MiB); files 0-${index} already decode to ${grouped(totalBytes)} bytes`,
      );
    }
    accepted.push(checked.file);
  }
  return { ok: true, files: accepted };
}

type Refusal = { ok: false; violation: FileRuleViolation };

function checkUploadRef(item: Record<string, unknown>, path: string): { ok: true; ref: UploadRef } | Refusal {
  const other = Object.keys(item).find((key) => key !== 'uploadId');
  if (other !== undefined) return violation(`${path}.${truncated(other)}`, 'is not a field of an upload reference (allowed: uploadId alone)');
  if (typeof item.uploadId !== 'string' || !isUuid(item.uploadId)) return violation(`${path}.uploadId`, 'must be the id of an upload');
  return { ok: true, ref: { uploadId: item.uploadId.toLowerCase() } };
}

/**
 * Rules across a turn's files once uploads are resolved (names unique ignoring case, 20 MiB in
 * all), for the files in their body order; `pathOf(index)` names a file's item.
 */
export function turnFileSetProblem(files: ReadonlyArray<{ name: string; sizeBytes: number }>, pathOf: (index: number) => string): FileRuleViolation | null {
  const earlier = new Map<string, number>();
  let total = 0;
  for (const [index, file] of files.entries()) {
    const seen = earlier.get(fileNameKey(file.name));
    if (seen !== undefined)
      return { path: pathOf(index), message: `${quote(file.name)} is already the name of another file of this turn (names are compared ignoring case)` };
    earlier.set(fileNameKey(file.name), index);
    total += file.sizeBytes;
    if (total > MAX_TURN_FILE_BYTES)
      return {
        path: pathOf(index),
        message: `the files must total at most ${grouped(MAX_TURN_FILE_BYTES)} bytes (20 MiB); files 0-${index} hold ${grouped(total)} bytes`,
      };
  }
  return null;
}

function checkItem(item: unknown, path: string, earlierNames: ReadonlyMap<string, number>, prefix: string): { ok: true; file: AcceptedFile } | Refusal {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return violation(path, 'must be an object with name, contentType and dataBase64');
  const unknownField = Object.keys(item).find((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknownField !== undefined) return violation(`${path}.${truncated(unknownField)}`, `is not a field of a file input (allowed: ${FIELDS.join(', ')})`);
  for (const field of FIELDS) {
    const value: unknown = Object.hasOwn(item, field) ? (item as Record<string, unknown>)[field] : undefined;
    if (value === undefined) return violation(`${path}.${field}`, 'is required');
    if (typeof value !== 'string') return violation(`${path}.${field}`, 'must be a string');
  }
  const { name, contentType, dataBase64 } = item as FileInputItem;

  const nameProblem = fileNameProblem(name);
  if (nameProblem) return violation(`${path}.name`, nameProblem);
  const earlier = earlierNames.get(fileNameKey(name));
  if (earlier !== undefined) return violation(`${path}.name`, `${quote(name)} is already the name of ${prefix}.${earlier} (names are compared ignoring case)`);

  const essence = mediaTypeEssence(contentType);
  if (essence === null) return violation(`${path}.contentType`, `${quote(contentType)} is not a media type (type/subtype)`);
  const kind = resolveFileKind(extensionOf(name)!, essence, contentType);
  if (!kind.ok) return violation(`${path}.${kind.field}`, kind.message);

  // Anything longer decodes to more than the cap, valid or not: refuse before scanning it.
  if (dataBase64.length > base64Length(MAX_FILE_BYTES)) return violation(`${path}.dataBase64`, tooLarge(name));
  const data = checkCanonicalBase64(dataBase64);
  if (!data.ok) return violation(`${path}.dataBase64`, data.message);
  if (data.sizeBytes > MAX_FILE_BYTES) return violation(`${path}.dataBase64`, tooLarge(name));

  return { ok: true, file: { name, contentType: kind.mediaType, fileClass: kind.fileClass, sizeBytes: data.sizeBytes, dataBase64 } };
}

function tooLarge(name: string): string {
  return `${quote(name)} must be at most ${grouped(MAX_FILE_BYTES)} bytes (10 MiB) once decoded`;
}

function grouped(count: number): string {
  return count.toLocaleString('en-US');
}

function violation(path: string, message: string): Refusal {
  return { ok: false, violation: { path, message } };
}

/** Which sandbox capabilities the files need: at least one of `anyOf` (rule 3). */
export type FileCapabilityNeed = { fileClass: FileClass; anyOf: readonly SandboxCapability[] };

/**
 * Rule 3: text files need `filesystem_read` or `shell`; binary files need `shell` (only a shell
 * can convert them). Null when there are no files: message-only runs need no sandbox.
 */
export function requiredSandboxCapabilities(files: readonly Pick<AcceptedFile, 'fileClass'>[]): FileCapabilityNeed | null {
  if (files.length === 0) return null;
  if (files.some((file) => file.fileClass === 'binary')) return { fileClass: 'binary', anyOf: ['shell'] };
  return { fileClass: 'text', anyOf: ['filesystem_read', 'shell'] };
}

/** Why the agent version's sandbox cannot take these files, or null when it can. */
export function sandboxCapabilityProblem(
  files: readonly Pick<AcceptedFile, 'name' | 'fileClass'>[],
  sandbox: { enabled: boolean; capabilities: readonly string[] },
): string | null {
  const need = requiredSandboxCapabilities(files);
  if (!need || (sandbox.enabled && need.anyOf.some((capability) => sandbox.capabilities.includes(capability)))) return null;
  const which = need.fileClass === 'binary' ? `binary files such as ${quote(files.find((file) => file.fileClass === 'binary')!.name)}` : 'text files';
  const capabilities = need.anyOf.join(' or ');
  return sandbox.enabled
    ? `${which} need the sandbox capability ${capabilities}, which this agent version's sandbox does not enable`
    : `${which} need a sandbox with ${capabilities}, and this agent version has no sandbox enabled`;
}

/**
 * Re-checks a stored attachment's type before the runtime copies it (spec 2 rule 4): the
 * recorded content type must still be what the file rules give for its name, and the class must
 * match. Guards against rows edited after the fact.
 */
export function storedTypeProblem(file: { filename: string; contentType: string; fileClass: FileClass }): string | null {
  const extension = extensionOf(file.filename);
  const essence = mediaTypeEssence(file.contentType);
  if (extension === null || essence === null) return `"${truncated(file.filename)}" has no usable extension or content type`;
  const kind = resolveFileKind(extension.toLowerCase(), essence, file.contentType);
  if (!kind.ok || kind.mediaType !== file.contentType || kind.fileClass !== file.fileClass)
    return `"${truncated(file.filename)}" no longer matches its recorded type`;
  return null;
}
