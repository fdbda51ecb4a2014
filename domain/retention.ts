import * as v from 'valibot';

/**
 * Retention windows (issue 34 part 4, docs/decisions/retention-settings.md): how long a settled session
 * keeps its rows and objects, and how long product events are kept. A window is written as a
 * whole number and a unit, `m` (minutes), `h` (hours) or `d` (days): `30d`, `12h`, `90m` (the
 * units of Temporal's own retention setting, without months or years). The same grammar is read
 * from the installation settings (config/settings.ts) and the project API.
 */
export const RETENTION_UNITS = { m: 1, h: 60, d: 1440 } as const;
/** The shortest window: one minute. */
export const MIN_RETENTION_MINUTES = 1;
/** The longest window: ten years (3,650 days). */
export const MAX_RETENTION_MINUTES = 3650 * 1440;

const DURATION = /^([1-9][0-9]{0,7})([mhd])$/;

/** Minutes of a retention window, or null when `text` is not one (malformed or out of range). */
export function retentionMinutes(text: string): number | null {
  const match = DURATION.exec(text);
  if (!match) return null;
  const minutes = Number(match[1]) * RETENTION_UNITS[match[2] as keyof typeof RETENTION_UNITS];
  return minutes >= MIN_RETENTION_MINUTES && minutes <= MAX_RETENTION_MINUTES ? minutes : null;
}

/** The canonical text of a window: the largest unit that divides it (`43200` → `30d`). */
export function formatRetention(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

const RETENTION_MESSAGE = 'must be a duration such as "30d", "12h" or "90m" (from 1m to 3650d), or null for the installation default';

/** A window in a request body: its text in, its minutes out. */
export const RetentionWindow = v.pipe(
  v.string(RETENTION_MESSAGE),
  v.check((text) => retentionMinutes(text) !== null, RETENTION_MESSAGE),
  v.transform((text) => retentionMinutes(text)!),
);

/** `PATCH /projects/{id}`'s `retention`: each window optional; null restores the installation default. */
export const ProjectRetentionInput = v.strictObject({
  sessions: v.optional(v.nullable(RetentionWindow)),
  events: v.optional(v.nullable(RetentionWindow)),
});

/** A window in minutes, as verbs re-check it. */
export const RetentionMinutes = v.pipe(v.number(), v.integer(), v.minValue(MIN_RETENTION_MINUTES), v.maxValue(MAX_RETENTION_MINUTES));

/** The validated form of `ProjectRetentionInput` (minutes), as the project verb takes it. */
export const ProjectRetentionChanges = v.strictObject({
  sessions: v.optional(v.nullable(RetentionMinutes)),
  events: v.optional(v.nullable(RetentionMinutes)),
});

/** The windows that apply to a project: its override, else the installation's; null = kept for good. */
export type RetentionWindows = { sessionsMinutes: number | null; eventsMinutes: number | null };

export function effectiveRetention(
  project: { sessionRetentionMinutes: number | null; eventRetentionMinutes: number | null },
  installation: RetentionWindows,
): RetentionWindows {
  return {
    sessionsMinutes: project.sessionRetentionMinutes ?? installation.sessionsMinutes,
    eventsMinutes: project.eventRetentionMinutes ?? installation.eventsMinutes,
  };
}
