/**
 * Standard five-field cron expressions (minute, hour, day of month, month, day of week), checked
 * before they reach Temporal's `ScheduleSpec.cronExpressions`, so a bad one is a 400 naming the
 * field rather than a failure of the Temporal Schedule later. Deliberately narrower than what
 * Temporal parses: no seconds or year field, no `@hourly`-style macros, no `CRON_TZ=` prefix
 * (the schedule's `timeZone` says it), no `L`/`W`/`#`, and day of week 0-6 (Sunday is 0) or
 * `SUN`-`SAT`. Each field is a comma-separated list of `*`, `n` or `n-m`; `*` and ranges may take
 * a `/step`.
 */

type Field = { name: string; min: number; max: number; names?: readonly string[] };

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  // Month names count from 1 (JAN = 1); day names from 0 (SUN = 0).
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day of week', min: 0, max: 6, names: DAY_NAMES },
];

/** Longest cron text accepted (a generous list of values still fits). */
export const CRON_MAX_LENGTH = 200;

/** Why `text` is not a standard five-field cron expression, or null when it is one. */
export function cronProblem(text: string): string | null {
  if (text.length > CRON_MAX_LENGTH) return `must be at most ${CRON_MAX_LENGTH} characters`;
  const parts = text.trim().split(/\s+/);
  if (text.trim() === '' || parts.length !== FIELDS.length) return 'must have five fields: minute hour day-of-month month day-of-week';
  for (const [index, part] of parts.entries()) {
    const problem = fieldProblem(part, FIELDS[index]!);
    if (problem) return `${FIELDS[index]!.name} field ${JSON.stringify(part)}: ${problem}`;
  }
  return null;
}

/** The expression with its fields separated by single spaces (what is stored and sent to Temporal). */
export const normalizeCron = (text: string) => text.trim().split(/\s+/).join(' ');

function fieldProblem(part: string, field: Field): string | null {
  for (const item of part.split(',')) {
    const [range, step, extra] = item.split('/');
    if (extra !== undefined) return 'has more than one "/"';
    if (step !== undefined && !/^[1-9][0-9]{0,2}$/.test(step)) return 'step must be a whole number from 1';
    if (range === '*') continue;
    const bounds = range!.split('-');
    if (step !== undefined && bounds.length !== 2) return 'a step follows "*" or a range (n-m/step)';
    if (bounds.length > 2) return 'a range has one "-"';
    const values = bounds.map((bound) => valueOf(bound, field));
    if (values.some((value) => value === null))
      return `values must be ${field.min}-${field.max}${field.names ? ` or ${field.names[0]}-${field.names.at(-1)}` : ''}`;
    if (values.length === 2 && values[0]! > values[1]!) return 'a range must go from low to high';
  }
  return null;
}

function valueOf(text: string, field: Field): number | null {
  if (/^[0-9]{1,2}$/.test(text)) {
    const value = Number(text);
    return value >= field.min && value <= field.max ? value : null;
  }
  const named = field.names?.indexOf(text.toUpperCase() as never) ?? -1;
  if (named < 0) return null;
  return field.min + named;
}
