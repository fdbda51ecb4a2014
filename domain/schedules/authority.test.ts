import { describe, expect, it } from 'vitest';
import { changesWork, scopesToFire, type ScheduleWork } from './authority.ts';

const agentId = '11111111-1111-4111-8111-111111111111';
const storeId = '44444444-4444-4444-8444-444444444444';
const work: ScheduleWork = {
  agentId,
  agentVersionId: null,
  target: 'new_session',
  sessionId: null,
  message: 'Report.',
  files: [{ uploadId: 'a' }],
  memoryStores: [{ storeId, access: 'read_write', instructions: null }],
};

describe('scopesToFire', () => {
  it('is run:create, and session:write for new sessions', () => {
    expect(scopesToFire('new_session')).toEqual(['run:create', 'session:write']);
    expect(scopesToFire('session')).toEqual(['run:create']);
  });
});

describe('changesWork', () => {
  it('is true for a change of the message, files, agent, version, target or session', () => {
    expect(changesWork(work, { ...work, message: 'Other.' })).toBe(true);
    expect(changesWork(work, { ...work, files: [] })).toBe(true);
    expect(changesWork(work, { ...work, files: [{ uploadId: 'b' }] })).toBe(true);
    expect(changesWork(work, { ...work, agentId: '22222222-2222-4222-8222-222222222222' })).toBe(true);
    expect(changesWork(work, { ...work, agentVersionId: '33333333-3333-4333-8333-333333333333' })).toBe(true);
    expect(changesWork(work, { ...work, target: 'session', sessionId: 's' })).toBe(true);
    const turns: ScheduleWork = { ...work, target: 'session', sessionId: 's' };
    expect(changesWork(turns, { ...turns, sessionId: 't' })).toBe(true);
  });

  it('is true for a change of the memory stores: which, their access or their instructions (what the runs may write)', () => {
    expect(changesWork(work, { ...work, memoryStores: [] })).toBe(true);
    expect(changesWork({ ...work, memoryStores: [] }, work)).toBe(true);
    expect(changesWork(work, { ...work, memoryStores: [{ storeId: agentId, access: 'read_write', instructions: null }] })).toBe(true);
    expect(changesWork(work, { ...work, memoryStores: [{ storeId, access: 'read_only', instructions: null }] })).toBe(true);
    expect(changesWork(work, { ...work, memoryStores: [{ storeId, access: 'read_write', instructions: 'Write less.' }] })).toBe(true);
    expect(changesWork(work, { ...work, memoryStores: [{ storeId, access: 'read_write', instructions: null }] })).toBe(false);
  });

  it('is false for the same values, and for agent fields of a session target (the session runs its own agent)', () => {
    expect(changesWork(work, { ...work, files: [{ uploadId: 'a' }] })).toBe(false);
    const turns: ScheduleWork = { ...work, target: 'session', sessionId: 's', agentVersionId: '33333333-3333-4333-8333-333333333333' };
    expect(changesWork(turns, { ...turns, agentVersionId: null })).toBe(false);
  });
});
