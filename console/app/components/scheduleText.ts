/** How the console words a schedule's timing, and turns the form's amount and unit into seconds. */

export const UNITS = [
  { value: 'seconds', label: 'seconds', seconds: 1 },
  { value: 'minutes', label: 'minutes', seconds: 60 },
  { value: 'hours', label: 'hours', seconds: 3_600 },
  { value: 'days', label: 'days', seconds: 86_400 },
] as const;
export type Unit = (typeof UNITS)[number]['value'];

export const secondsOf = (amount: number, unit: Unit) => amount * UNITS.find((entry) => entry.value === unit)!.seconds;

/** Seconds in the largest unit that divides them: `every 2 hours`, `every 90 seconds`, `every minute`. */
export function everyText(seconds: number): string {
  const unit = [...UNITS].reverse().find((entry) => seconds % entry.seconds === 0)!;
  const amount = seconds / unit.seconds;
  return amount === 1 ? `every ${unit.label.slice(0, -1)}` : `every ${amount} ${unit.label}`;
}

export function timingText(schedule: { cron: string | null; intervalSeconds: number | null; timeZone: string }): string {
  return schedule.cron ? `cron ${schedule.cron} (${schedule.timeZone})` : everyText(schedule.intervalSeconds ?? 0);
}
