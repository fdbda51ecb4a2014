import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CreateScheduleInput, scheduleFieldsProblem, UpdateScheduleInput } from './inputs.ts';
import { canonicalTimeZone } from './time-zone.ts';

const agentId = '11111111-1111-4111-8111-111111111111';
const sessionId = '22222222-2222-4222-8222-222222222222';
const issue = (input: unknown) => {
  const result = v.safeParse(CreateScheduleInput, input);
  return result.success ? null : { path: result.issues[0].path?.map((item) => String(item.key)).join('.') ?? '', message: result.issues[0].message };
};

describe('CreateScheduleInput', () => {
  it('takes the defaults and canonical forms', () => {
    const parsed = v.parse(CreateScheduleInput, { agentId, cron: ' 0  9 * * MON-FRI', timeZone: 'europe/paris', message: 'Report.' });
    expect(parsed).toMatchObject({ cron: '0 9 * * MON-FRI', timeZone: 'Europe/Paris' });
    expect(parsed.overlap).toBeUndefined();
  });

  it.each([
    [{ cron: '0 * * * *', intervalSeconds: 60 }, 'cron', /exactly one/],
    [{}, 'cron', /exactly one/],
    [{ agentId: undefined, intervalSeconds: 60 }, 'agentId', /give agentId or agentVersionId/],
    [{ agentVersionId: agentId, intervalSeconds: 60 }, 'agentId', /not both/],
    [{ intervalSeconds: 60, sessionId }, 'sessionId', /needs target session/],
    [{ intervalSeconds: 60, ifBusy: 'skip' }, 'ifBusy', /needs target session/],
    [{ intervalSeconds: 60, target: 'session' }, 'sessionId', /needs a sessionId/],
    [{ intervalSeconds: 0 }, 'intervalSeconds', /at least 1/],
    [{ intervalSeconds: 1.5 }, 'intervalSeconds', /whole number/],
    [{ intervalSeconds: 60, catchupWindowSeconds: 9 }, 'catchupWindowSeconds', /at least 10/],
    [{ intervalSeconds: 60, catchupWindowSeconds: 7 * 86_400 + 1 }, 'catchupWindowSeconds', /at most/],
    [{ intervalSeconds: 60, timeZone: 'Mars/Olympus' }, 'timeZone', /IANA/],
    [{ intervalSeconds: 60, timeZone: '+01:00' }, 'timeZone', /IANA/],
    [{ cron: '61 * * * *' }, 'cron', /minute/],
    [{ intervalSeconds: 60, files: [{ name: 'a.txt', contentType: 'text/plain', dataBase64: '' }] }, 'files.0.uploadId', /UUID|upload/],
    [{ intervalSeconds: 60, overlap: 'cancel_other' }, 'overlap', /must be one of/],
    [{ intervalSeconds: 60, message: '   ' }, 'message', /must not be empty/],
    [{ intervalSeconds: 60, extra: true }, 'extra', /.*/],
    [{ target: 'session', sessionId, intervalSeconds: 60, memoryStores: [{ storeId: agentId }] }, 'memoryStores', /needs target new_session/],
    [{ intervalSeconds: 60, memoryStores: [{ storeId: 'store' }] }, 'memoryStores.0.storeId', /UUID/],
    [{ intervalSeconds: 60, memoryStores: [{ storeId: agentId, access: 'write' }] }, 'memoryStores.0.access', /read_write or read_only/],
    [{ intervalSeconds: 60, memoryStores: [{ storeId: agentId }, { storeId: agentId }] }, 'memoryStores', /twice/],
  ])('refuses %j at %s', (fields, path, message) => {
    const found = issue({ agentId, message: 'Report.', ...fields });
    expect(found?.path).toBe(path);
    expect(found?.message).toMatch(message);
  });

  it('needs no agent for a session target (the session has one)', () => {
    expect(issue({ target: 'session', sessionId, intervalSeconds: 60, message: 'Next?' })).toBeNull();
  });

  it('takes memory stores as POST /sessions does (read_write by default); a session target takes an empty list', () => {
    const parsed = v.parse(CreateScheduleInput, { agentId, intervalSeconds: 60, message: 'Report.', memoryStores: [{ storeId: sessionId }] });
    expect(parsed.memoryStores).toEqual([{ storeId: sessionId, access: 'read_write' }]);
    expect(issue({ target: 'session', sessionId, intervalSeconds: 60, message: 'Next?', memoryStores: [] })).toBeNull();
  });
});

describe('UpdateScheduleInput and the merged schedule', () => {
  it('refuses two timings or two agent references in one change', () => {
    expect(v.safeParse(UpdateScheduleInput, { cron: '0 * * * *', intervalSeconds: 60 }).success).toBe(false);
    expect(v.safeParse(UpdateScheduleInput, { agentId, agentVersionId: agentId }).success).toBe(false);
    expect(v.safeParse(UpdateScheduleInput, { name: null }).success).toBe(true);
  });

  it('checks the merged fields as a whole', () => {
    expect(scheduleFieldsProblem({ agentId, intervalSeconds: 60, target: 'new_session' })).toBeNull();
    expect(scheduleFieldsProblem({ agentId, intervalSeconds: 60, cron: '0 * * * *', target: 'new_session' })?.path).toBe('cron');
    expect(scheduleFieldsProblem({ intervalSeconds: 60, target: 'session', sessionId: null })?.path).toBe('sessionId');
    expect(scheduleFieldsProblem({ intervalSeconds: 60, target: 'session', sessionId, memoryStores: [{}] })?.path).toBe('memoryStores');
  });
});

describe('canonicalTimeZone', () => {
  it('spells IANA names as the zone database does and refuses the rest', () => {
    expect(canonicalTimeZone('utc')).toBe('UTC');
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimeZone('Europe/Nowhere')).toBeNull();
    expect(canonicalTimeZone('-05:00')).toBeNull();
    expect(canonicalTimeZone('../../etc/passwd')).toBeNull();
  });
});
