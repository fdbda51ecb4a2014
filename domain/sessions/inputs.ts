import * as v from 'valibot';
import { SessionMemoryStoresInput } from '../memory/attachments.ts';
import { checkFileInputs, NEUTRAL_FILES_MESSAGE, type TurnFileInput } from '../attachments/file-input.ts';
import { ValidationError } from '../errors.ts';
import { SessionBudgetInput } from '../usage/budget.ts';
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

const Title = v.optional(v.nullable(v.pipe(v.string(), v.maxLength(SESSION_TITLE_MAX_LENGTH, `must be at most ${SESSION_TITLE_MAX_LENGTH} characters`))));

/**
 * `POST /sessions` body (spec 2 "Sessions, runs, files"). One of `agentId` or
 * `agentVersionId` is required. With neither `initialMessage` nor files the session is created
 * idle (no run until its first turn, docs/decisions/idle-sessions.md).
 */
export const CreateSessionInput = v.pipe(
  v.strictObject({
    agentId: v.optional(Uuid),
    agentVersionId: v.optional(Uuid),
    title: Title,
    initialMessage: v.optional(MessageText),
    files: v.optional(Files),
    /** With `agentVersionId`: pin that version even when it is not the agent's latest. */
    anyVersion: v.optional(v.boolean('must be true or false')),
    /** Money and token limits on the session's model calls (docs/decisions/budgets.md). */
    budget: v.optional(SessionBudgetInput),
    /** Memory stores of the project the session reads and writes (docs/decisions/memory-stores.md). */
    memoryStores: v.optional(SessionMemoryStoresInput),
  }),
  v.check((input) => input.agentId !== undefined || input.agentVersionId !== undefined, 'give agentId or agentVersionId'),
  v.forward(
    v.check((input) => !input.anyVersion || input.agentVersionId !== undefined, 'anyVersion needs agentVersionId'),
    ['anyVersion'],
  ),
);
export type CreateSessionInput = v.InferOutput<typeof CreateSessionInput>;

/**
 * `PATCH /sessions/{id}`: the session's own fields: `title` (`null` or empty clears it) and
 * `budget` (replaced whole; `null` removes it).
 */
export const UpdateSessionInput = v.strictObject({ title: Title, budget: v.optional(SessionBudgetInput) });
export type UpdateSessionInput = v.InferOutput<typeof UpdateSessionInput>;

/** Whether a creation body carries a first turn (a message or files); without one the session is idle. */
export const hasFirstTurn = (input: { initialMessage?: string | undefined; files?: unknown[] | undefined }) =>
  input.initialMessage !== undefined || hasFiles(input.files);

/**
 * `POST /sessions/{id}/fork` body: the settled run of the source session whose transcript the
 * fork copies (through that run), optionally another version of an agent of the project, a
 * title, and a first turn (without one the fork is idle).
 */
export const ForkSessionInput = v.strictObject({
  fromRunId: Uuid,
  agentVersionId: v.optional(Uuid),
  title: Title,
  initialMessage: v.optional(MessageText),
  files: v.optional(Files),
});
export type ForkSessionInput = v.InferOutput<typeof ForkSessionInput>;

/** What a turn does when the session's latest run is unsettled (docs/decisions/if-busy.md). */
export const IF_BUSY = ['reject', 'enqueue', 'interrupt'] as const;
export type IfBusy = (typeof IF_BUSY)[number];
/** Pending turns a session may hold behind its active run. */
export const MAX_PENDING_TURNS = 16;

const TurnEntries = {
  message: v.optional(MessageText),
  redactedInput: v.optional(MessageText),
  files: v.optional(Files),
};
type TurnFields = { message?: string | undefined; redactedInput?: string | undefined; files?: unknown[] | undefined };
const oneText = <T extends TurnFields>() =>
  v.check<T, string>((input) => !(input.message !== undefined && input.redactedInput !== undefined), 'give message or redactedInput, not both');
const someContent = <T extends TurnFields>() =>
  v.forward<T, v.CheckIssue<T>, ['message']>(
    v.check<T, string>(
      (input) => input.message !== undefined || input.redactedInput !== undefined || hasFiles(input.files),
      'message is required unless files are attached',
    ),
    ['message'] as never,
  );

/**
 * The turn body of resume runs: `message` or its alias `redactedInput` (exactly one), optional
 * `files`. Text may be left out only when files are attached.
 */
const TurnObject = v.strictObject(TurnEntries);
export const TurnInput = v.pipe(TurnObject, oneText<v.InferOutput<typeof TurnObject>>(), someContent<v.InferOutput<typeof TurnObject>>());
export type TurnInput = v.InferOutput<typeof TurnInput>;

/** The follow-up turn body (`POST /sessions/{id}/runs`): a turn plus `ifBusy` (default `reject`). */
const FollowUpObject = v.strictObject({ ...TurnEntries, ifBusy: v.optional(v.picklist(IF_BUSY, `must be one of ${IF_BUSY.join(', ')}`)) });
export const FollowUpInput = v.pipe(FollowUpObject, oneText<v.InferOutput<typeof FollowUpObject>>(), someContent<v.InferOutput<typeof FollowUpObject>>());
export type FollowUpInput = v.InferOutput<typeof FollowUpInput>;

/**
 * The text a turn records: `message`, else its alias `redactedInput`, else (a files-only turn,
 * which the schemas allow) a fixed neutral message.
 */
export function turnText(input: TurnInput): string {
  return input.message ?? input.redactedInput ?? NEUTRAL_FILES_MESSAGE;
}

/** Runs every file rule on a turn's `files`; a 400 naming the failing path (`body.files.N.field`). */
export function acceptTurnFiles(files: unknown[] | undefined): TurnFileInput[] {
  if (files === undefined) return [];
  const check = checkFileInputs(files, { pathPrefix: 'files' });
  if (!check.ok) throw new ValidationError(`Invalid body: ${check.violation.path}: ${check.violation.message}`, { path: `body.${check.violation.path}` });
  return check.files;
}
