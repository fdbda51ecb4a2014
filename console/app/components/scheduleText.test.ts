import { describe, expect, it } from 'vitest';
import { everyText, secondsOf, timingText } from './scheduleText.ts';

describe("a schedule's timing in words", () => {
  it('names an interval in the largest unit that divides it', () => {
    expect(everyText(2)).toBe('every 2 seconds');
    expect(everyText(60)).toBe('every minute');
    expect(everyText(90)).toBe('every 90 seconds');
    expect(everyText(7_200)).toBe('every 2 hours');
    expect(everyText(86_400)).toBe('every day');
    expect(secondsOf(3, 'hours')).toBe(10_800);
  });

  it('shows a cron expression with its time zone', () => {
    expect(timingText({ cron: '0 9 * * 1-5', intervalSeconds: null, timeZone: 'Europe/Paris' })).toBe('cron 0 9 * * 1-5 (Europe/Paris)');
    expect(timingText({ cron: null, intervalSeconds: 3_600, timeZone: 'UTC' })).toBe('every hour');
  });
});
