import * as v from 'valibot';
import { checkFileInputs, NEUTRAL_FILES_MESSAGE, type AcceptedFile } from '../attachments/file-input.ts';
import { ValidationError } from '../errors.ts';
import { MESSAGE_TEXT_MAX_LENGTH, SESSION_TITLE_MAX_LENGTH } from './limits.ts';

const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));

/** Message text: 1-100,000 characters with at least one non-blank character. */
export const MessageText = v.pipe(
  v.string(),
  v.maxLength(MESSAGE_TEXT_MAX_LENGTH, `must be at most ${MESSAGE_TEXT_MAX_LENGTH.toLocaleString('en-US')} characters`),
  v.check((text) => text.trim() !== '', 'must not be empty'),
);

/**
 * `files`: an array here; every file rule (domain/attachments/file-input.ts) runs in
 * `acceptTurnFiles`, which names the exact failing path.
 */
const Files = v.array(v.unknown(), 'must be an array of files');

const hasFiles = (files: unknown[] | undefined) => (files?.length ?? 0) > 0;

/**
 * `POST /sessions` body (spec 2 "Sessions, runs, files"). One of `agentId` or
 * `agentVersionId` is required; `initialMessage` may be left out only when files are attached.
 */
export const CreateSessionInput = v.pipe(
  v.strictObject({
    agentId: v.optional(Uuid),
    agentVersionId: v.optional(Uuid),
    title: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(SESSION_TITLE_MAX_LENGTH, `must be at most ${SESSION_TITLE_MAX_LENGTH} characters`)))),
    initialMessage: v.optional(MessageText),
    files: v.optional(Files),
  }),
  v.check((input) => input.agentId !== undefined || input.agentVersionId !== undefined, 'give agentId or agentVersionId'),
  v.forward(
    v.check((input) => input.initialMessage !== undefined || hasFiles(input.files), 'initialMessage is required unless files are attached'),
    ['initialMessage'],
  ),
);
export type CreateSessionInput = v.InferOutput<typeof CreateSessionInput>;

/**
 * The turn body of follow-up and resume runs: `message` or its alias `redactedInput` (exactly
 * one), optional `files`. Text may be left out only when files are attached.
 */
export const TurnInput = v.pipe(
  v.strictObject({
    message: v.optional(MessageText),
    redactedInput: v.optional(MessageText),
    files: v.optional(Files),
  }),
  v.check((input) => !(input.message !== undefined && input.redactedInput !== undefined), 'give message or redactedInput, not both'),
  v.forward(
    v.check((input) => input.message !== undefined || input.redactedInput !== undefined || hasFiles(input.files), 'message is required unless files are attached'),
    ['message'],
  ),
);
export type TurnInput = v.InferOutput<typeof TurnInput>;

/**
 * The text a turn records: `message`, else its alias `redactedInput`, else (a files-only turn,
 * which the schemas allow) a fixed neutral message.
 */
export function turnText(input: TurnInput): string {
  return input.message ?? input.redactedInput ?? NEUTRAL_FILES_MESSAGE;
}

/** Runs every file rule on a turn's `files`; a 400 naming the failing path (`body.files.N.field`). */
export function acceptTurnFiles(files: unknown[] | undefined): AcceptedFile[] {
  if (files === undefined) return [];
  const check = checkFileInputs(files, { pathPrefix: 'files' });
  if (!check.ok) throw new ValidationError(`Invalid body: ${check.violation.path}: ${check.violation.message}`, { path: `body.${check.violation.path}` });
  return check.files;
}
