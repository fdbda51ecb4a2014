import * as v from 'valibot';
import { ValidationError } from '../errors.ts';

export const LEDGER_GROUPS = ['day', 'agent', 'preset', 'apiKey'] as const;
export type LedgerGroup = (typeof LEDGER_GROUPS)[number];

/** The longest range one ledger request may cover. */
export const MAX_LEDGER_DAYS = 366;

const Day = (name: string) => v.pipe(v.string(`${name} must be a date`), v.isoDate(`${name} must be a date (YYYY-MM-DD)`));

/**
 * `GET /projects/{id}/usage` query: UTC days `from` and `to`, both included (default: this
 * month so far), and `groupBy` (default `day`).
 */
export const UsageQuery = v.strictObject({
  from: v.optional(Day('from')),
  to: v.optional(Day('to')),
  groupBy: v.optional(v.picklist(LEDGER_GROUPS, `groupBy must be one of ${LEDGER_GROUPS.join(', ')}`)),
});
export type UsageQuery = v.InferOutput<typeof UsageQuery>;

export type LedgerRange = { from: string; to: string; groupBy: LedgerGroup };

const DAY_MS = 86_400_000;

/** `2026-02-30` matches the pattern but names no day. */
const isCalendarDay = (day: string) => new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;

/** Fills the defaults and checks the range: `from` not after `to`, at most a year. */
export function ledgerRange(query: UsageQuery, now: Date): LedgerRange {
  const today = now.toISOString().slice(0, 10);
  const to = query.to ?? today;
  const from = query.from ?? `${to.slice(0, 7)}-01`;
  if (!isCalendarDay(from)) throw new ValidationError('from is not a calendar date', { path: 'query.from' });
  if (!isCalendarDay(to)) throw new ValidationError('to is not a calendar date', { path: 'query.to' });
  if (from > to) throw new ValidationError('from must not be after to', { path: 'query.from' });
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days > MAX_LEDGER_DAYS) throw new ValidationError(`The range may cover at most ${MAX_LEDGER_DAYS} days`, { path: 'query.to' });
  return { from, to, groupBy: query.groupBy ?? 'day' };
}
