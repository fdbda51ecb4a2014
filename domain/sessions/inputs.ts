import * as v from 'valibot';
import { FILES_NOT_AVAILABLE_MESSAGE, MESSAGE_TEXT_MAX_LENGTH, SESSION_TITLE_MAX_LENGTH } from './limits.ts';

const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));

/** Message text: 1-100,000 characters with at least one non-blank character. */
export const MessageText = v.pipe(
  v.string(),
  v.maxLength(MESSAGE_TEXT_MAX_LENGTH, `must be at most ${MESSAGE_TEXT_MAX_LENGTH.toLocaleString('en-US')} characters`),
  v.check((text) => text.trim() !== '', 'must not be empty'),
);

/**
 * `files` is part of the contract, but attachments need object storage and the sandbox, which
 * come later: any non-empty list is refused so a caller never believes files were delivered.
 */
const Files = v.pipe(v.array(v.unknown()), v.maxLength(0, FILES_NOT_AVAILABLE_MESSAGE));

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

/** The text a turn records: `message`, else its alias `redactedInput`. */
export function turnText(input: TurnInput): string {
  const text = input.message ?? input.redactedInput;
  // Unreachable while files are refused: the schema requires text without files.
  if (text === undefined) throw new Error('a turn without text needs files, which are not available yet');
  return text;
}
