import * as v from 'valibot';
import { MAX_FILES_PER_TURN } from '../attachments/file-input.ts';
import { SessionMemoryStoresInput, type MemoryAccess } from '../memory/attachments.ts';
import { MessageText } from '../sessions/inputs.ts';
import { SESSION_TITLE_MAX_LENGTH } from '../sessions/limits.ts';
import { cronProblem, normalizeCron } from './cron.ts';
import { canonicalTimeZone } from './time-zone.ts';

/**
 * The bodies of `POST /schedules` and `PATCH /schedules/{id}` (docs/decisions/schedules.md).
 * Shape and single-field rules live in the schemas; the rules across fields of the schedule as
 * it will be (one agent reference, one timing, the target's fields) in `scheduleFieldsProblem`,
 * which a PATCH applies to the merged result.
 */

export const SCHEDULE_OVERLAPS = ['skip', 'buffer_one', 'allow_all'] as const;
export type ScheduleOverlap = (typeof SCHEDULE_OVERLAPS)[number];
export const SCHEDULE_TARGETS = ['new_session', 'session'] as const;
export type ScheduleTarget = (typeof SCHEDULE_TARGETS)[number];
export const SCHEDULE_IF_BUSY = ['enqueue', 'skip'] as const;
export type ScheduleIfBusy = (typeof SCHEDULE_IF_BUSY)[number];

/** Temporal's own floor for a catch-up window is 10 s; a week bounds how stale a firing may run. */
export const MIN_CATCHUP_WINDOW_SECONDS = 10;
export const MAX_CATCHUP_WINDOW_SECONDS = 7 * 24 * 60 * 60;
export const DEFAULT_CATCHUP_WINDOW_SECONDS = 60;
/** Up to a (leap) year between firings. */
export const MAX_INTERVAL_SECONDS = 366 * 24 * 60 * 60;
/** Live schedules a project may hold: each is a Temporal Schedule firing on its own. */
export const MAX_SCHEDULES_PER_PROJECT = 100;
/** The name is also the title of the sessions a schedule opens. */
export const SCHEDULE_NAME_MAX_LENGTH = SESSION_TITLE_MAX_LENGTH;

const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));
const Name = v.nullable(v.pipe(v.string(), v.maxLength(SCHEDULE_NAME_MAX_LENGTH, `must be at most ${SCHEDULE_NAME_MAX_LENGTH} characters`)));
const Cron = v.pipe(
  v.string('must be a cron expression'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = cronProblem(dataset.value);
    if (problem) addIssue({ message: problem });
  }),
  v.transform(normalizeCron),
);
const IntervalSeconds = v.pipe(
  v.number('must be a number of seconds'),
  v.integer('must be a whole number of seconds'),
  v.minValue(1, 'must be at least 1'),
  v.maxValue(MAX_INTERVAL_SECONDS, `must be at most ${MAX_INTERVAL_SECONDS} (366 days)`),
);
const TimeZone = v.pipe(
  v.string('must be an IANA time zone name'),
  v.check((name) => canonicalTimeZone(name) !== null, 'must be an IANA time zone name such as UTC or Europe/Paris'),
  v.transform((name) => canonicalTimeZone(name)!),
);
const CatchupWindowSeconds = v.pipe(
  v.number('must be a number of seconds'),
  v.integer('must be a whole number of seconds'),
  v.minValue(MIN_CATCHUP_WINDOW_SECONDS, `must be at least ${MIN_CATCHUP_WINDOW_SECONDS}`),
  v.maxValue(MAX_CATCHUP_WINDOW_SECONDS, `must be at most ${MAX_CATCHUP_WINDOW_SECONDS} (7 days)`),
);
/** Files already uploaded (`POST /uploads`), by id only: a schedule keeps no bytes. */
const Files = v.pipe(
  v.array(
    v.strictObject({ uploadId: v.pipe(Uuid, v.toLowerCase()) }, 'must be an upload reference {uploadId} (upload the file first: POST /uploads)'),
    'must be an array of upload references',
  ),
  v.maxLength(MAX_FILES_PER_TURN, `must hold at most ${MAX_FILES_PER_TURN} files`),
);

const fields = {
  name: v.optional(Name),
  agentId: v.optional(Uuid),
  agentVersionId: v.optional(Uuid),
  cron: v.optional(Cron),
  intervalSeconds: v.optional(IntervalSeconds),
  timeZone: v.optional(TimeZone),
  message: MessageText,
  files: v.optional(Files),
  overlap: v.optional(v.picklist(SCHEDULE_OVERLAPS, `must be one of ${SCHEDULE_OVERLAPS.join(', ')}`)),
  catchupWindowSeconds: v.optional(CatchupWindowSeconds),
  target: v.optional(v.picklist(SCHEDULE_TARGETS, `must be one of ${SCHEDULE_TARGETS.join(', ')}`)),
  sessionId: v.optional(Uuid),
  ifBusy: v.optional(v.picklist(SCHEDULE_IF_BUSY, `must be one of ${SCHEDULE_IF_BUSY.join(', ')}`)),
  /** The memory stores each new session attaches, as `POST /sessions` takes them (target `new_session` only). */
  memoryStores: v.optional(SessionMemoryStoresInput),
};

/** One memory store a schedule's new sessions attach, as `POST /sessions` takes it. */
export type ScheduleMemoryStore = { storeId: string; access: MemoryAccess; instructions: string | null };

/** A schedule's memory stores as stored and shown: every field given (`instructions` null when none). */
export const storedMemoryStores = (input: SessionMemoryStoresInput | undefined): ScheduleMemoryStore[] =>
  (input ?? []).map((entry) => ({ storeId: entry.storeId, access: entry.access, instructions: entry.instructions ?? null }));

/** What the cross-field rules look at: a schedule's fields as they will be stored. */
export type ScheduleFields = {
  agentId?: string | null | undefined;
  agentVersionId?: string | null | undefined;
  cron?: string | null | undefined;
  intervalSeconds?: number | null | undefined;
  target: ScheduleTarget;
  sessionId?: string | null | undefined;
  ifBusy?: ScheduleIfBusy | null | undefined;
  memoryStores?: ReadonlyArray<unknown> | null | undefined;
};

export type FieldProblem = { path: string; message: string };

const given = (value: unknown) => value !== undefined && value !== null;

/**
 * The first rule across fields the schedule breaks, or null: exactly one of `cron` and
 * `intervalSeconds`; for `new_session` exactly one of `agentId` and `agentVersionId` (for
 * `session` they are optional: the session's own agent runs), no `sessionId` and no `ifBusy`;
 * for `session` a `sessionId` and no `memoryStores` (the session attached its stores when it was
 * created; an empty list is no stores).
 */
export function scheduleFieldsProblem(schedule: ScheduleFields): FieldProblem | null {
  if (given(schedule.cron) === given(schedule.intervalSeconds)) return { path: 'cron', message: 'give exactly one of cron and intervalSeconds' };
  if (given(schedule.agentId) && given(schedule.agentVersionId)) return { path: 'agentId', message: 'give agentId or agentVersionId, not both' };
  if (schedule.target === 'new_session') {
    if (!given(schedule.agentId) && !given(schedule.agentVersionId)) return { path: 'agentId', message: 'give agentId or agentVersionId' };
    if (given(schedule.sessionId)) return { path: 'sessionId', message: 'sessionId needs target session' };
    if (given(schedule.ifBusy)) return { path: 'ifBusy', message: 'ifBusy needs target session' };
    return null;
  }
  if (!given(schedule.sessionId)) return { path: 'sessionId', message: 'target session needs a sessionId' };
  if ((schedule.memoryStores?.length ?? 0) > 0)
    return { path: 'memoryStores', message: 'memoryStores needs target new_session (a session keeps the stores it was created with)' };
  return null;
}

const crossFieldCheck = <T extends Omit<ScheduleFields, 'target'> & { target?: ScheduleTarget | undefined }>() =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = scheduleFieldsProblem({ ...dataset.value, target: dataset.value.target ?? 'new_session' });
    if (problem)
      addIssue({
        message: problem.message,
        path: [{ type: 'object', origin: 'value', input: dataset.value, key: problem.path, value: (dataset.value as Record<string, unknown>)[problem.path] }],
      });
  });

const CreateScheduleObject = v.strictObject({ ...fields, paused: v.optional(v.boolean('must be true or false')) });

/**
 * `POST /schedules`. Defaults: `timeZone` UTC, `overlap` skip, `catchupWindowSeconds` 60,
 * `target` new_session, `ifBusy` enqueue (target session), not paused, no files, no memory stores.
 */
export const CreateScheduleInput = v.pipe(CreateScheduleObject, crossFieldCheck<v.InferOutput<typeof CreateScheduleObject>>());
export type CreateScheduleInput = v.InferOutput<typeof CreateScheduleInput>;

/**
 * `PATCH /schedules/{id}`: any field of the creation body but `paused` (pause and unpause have
 * routes of their own). Giving `cron` replaces `intervalSeconds` and the reverse; giving
 * `agentId` unpins a pinned version and giving `agentVersionId` pins one; `name: null` clears
 * the name; `memoryStores` replaces the list (a schedule moved to target `session` forgets it).
 * The merged schedule is checked with `scheduleFieldsProblem`.
 */
export const UpdateScheduleInput = v.pipe(
  v.strictObject({ ...fields, message: v.optional(MessageText) }),
  v.check((input) => !(input.cron !== undefined && input.intervalSeconds !== undefined), 'give cron or intervalSeconds, not both'),
  v.check((input) => !(input.agentId !== undefined && input.agentVersionId !== undefined), 'give agentId or agentVersionId, not both'),
);
export type UpdateScheduleInput = v.InferOutput<typeof UpdateScheduleInput>;
