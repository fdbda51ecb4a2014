import { describe, expect, it } from 'vitest';
import { cronProblem, normalizeCron } from './cron.ts';

describe('cronProblem', () => {
  it.each([
    '* * * * *',
    '0 * * * *',
    '*/15 9-17 * * MON-FRI',
    '30 9 1,15 * *',
    '0 0 1 jan *',
    '0 12 * JAN-MAR sun',
    '5,10-20/5 0-23/2 1-31 1-12 0-6',
    '  0  9 * * 1  ',
  ])('accepts %j', (text) => {
    expect(cronProblem(text)).toBeNull();
  });

  it.each([
    ['', /five fields/],
    ['* * * *', /five fields/],
    ['0 0 * * * *', /five fields/],
    ['@hourly', /five fields/],
    ['60 * * * *', /^minute field "60"/],
    ['* 24 * * *', /^hour field/],
    ['* * 0 * *', /^day of month field/],
    ['* * * 13 *', /^month field/],
    ['* * * * 7', /^day of week field/],
    ['* * * * SUNDAY', /^day of week field/],
    ['*/0 * * * *', /step/],
    ['5/15 * * * *', /a step follows/],
    ['10-5 * * * *', /low to high/],
    ['1-2-3 * * * *', /one "-"/],
    ['*/5/2 * * * *', /more than one/],
    ['0 9 ? * *', /^day of month field/],
    ['0 9 L * *', /^day of month field/],
    ['CRON_TZ=UTC 0 9 * * *', /five fields/],
    [`0 ${'1,'.repeat(120)}1 * * *`, /at most 200/],
  ])('refuses %j', (text, problem) => {
    expect(cronProblem(text)).toMatch(problem);
  });

  it('normalizes the spacing', () => {
    expect(normalizeCron('  0   9 *\t* MON ')).toBe('0 9 * * MON');
  });
});
