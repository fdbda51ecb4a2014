import { describe, expect, it } from 'vitest';
import { buildRunTimeline, type TimelineInvocation } from './timeline.ts';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
const invocation = (overrides: Partial<TimelineInvocation>): TimelineInvocation => ({
  id: 'i',
  runId: 'r1',
  turnId: 't1',
  attempt: 1,
  status: 'succeeded',
  finishReason: 'stop',
  errorCode: null,
  startedAt: at(2),
  completedAt: at(3),
  ...overrides,
});

describe('buildRunTimeline', () => {
  it('has only the open queue entry for a queued run', () => {
    const entries = buildRunTimeline({ id: 'r1', state: 'queued', createdAt: at(0), admittedAt: null, settledAt: null }, []);
    expect(entries).toEqual([expect.objectContaining({ entrySequence: 1, kind: 'queue', status: 'queued', completedAt: null, durationMs: null })]);
  });

  it('orders queue, execution and this run’s invocations by start time, numbering from 1', () => {
    const run = { id: 'r1', state: 'completed', createdAt: at(0), admittedAt: at(1), settledAt: at(9) };
    const entries = buildRunTimeline(run, [
      invocation({ id: 'b', turnId: 't2', startedAt: at(5), completedAt: null, status: 'started' }),
      invocation({ id: 'a' }),
      invocation({ id: 'other', runId: 'r2' }),
    ]);
    expect(entries.map((entry) => [entry.entrySequence, entry.kind, entry.modelInvocationId])).toEqual([
      [1, 'queue', null],
      [2, 'execution', null],
      [3, 'model_invocation', 'a'],
      [4, 'model_invocation', 'b'],
    ]);
    expect(entries[0]).toMatchObject({ status: 'admitted', durationMs: 1000 });
    expect(entries[1]).toMatchObject({ status: 'completed', durationMs: 8000 });
    expect(entries[3]).toMatchObject({ completedAt: null, durationMs: null });
  });

  it('closes the queue at settlement for a run cancelled before admission', () => {
    const [queue, ...rest] = buildRunTimeline({ id: 'r1', state: 'cancelled', createdAt: at(0), admittedAt: null, settledAt: at(4) }, []);
    expect(queue).toMatchObject({ status: 'cancelled', durationMs: 4000 });
    expect(rest).toEqual([]);
  });
});
