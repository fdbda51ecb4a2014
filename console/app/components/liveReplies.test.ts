import { describe, expect, it } from 'vitest';
import { LiveText } from '../../../client/src/index.ts';
import { liveReplies } from './liveReplies.ts';

const assistant = (runId: string) => ({ runId, role: 'assistant' as const });
const user = (runId: string) => ({ runId, role: 'user' as const });

describe('liveReplies', () => {
  it('shows the turns being written until the transcript holds their message', () => {
    const entries = [{ runId: 'r1', turn: 1, text: 'Your refund' }];
    expect(liveReplies(entries, [user('r1')])).toEqual({ writing: entries, done: [] });
    // The re-read transcript holds the turn's message: the live text goes in the same render.
    expect(liveReplies(entries, [user('r1'), assistant('r1')])).toEqual({ writing: [], done: ['r1'] });
  });

  it("counts a run's assistant messages: turn N is committed once there are N, whatever other runs hold", () => {
    const entries = [{ runId: 'r2', turn: 2, text: 'Refund issued' }];
    // Turn 1 (a tool call, without text) is committed; turn 2 is still being written.
    expect(liveReplies(entries, [assistant('r1'), assistant('r1'), user('r2'), assistant('r2')]).writing).toEqual(entries);
    expect(liveReplies(entries, [user('r2'), assistant('r2'), { runId: 'r2', role: 'tool' }, assistant('r2')])).toEqual({ writing: [], done: ['r2'] });
  });

  it("keeps a run's live text while a later turn of it is open, even one without text yet", () => {
    const entries = [
      { runId: 'r1', turn: 1, text: 'Checking.' },
      { runId: 'r1', turn: 2, text: '' },
    ];
    expect(liveReplies(entries, [assistant('r1')])).toEqual({ writing: [], done: [] });
    expect(liveReplies(entries, [assistant('r1'), assistant('r1')])).toEqual({ writing: [], done: ['r1'] });
  });

  it('follows LiveText through a reset and a reconnection catch-up', () => {
    const live = new LiveText();
    const delta = (offset: number, text: string, attempt = 1) => live.apply({ type: 'message.delta', delta: { runId: 'r1', turn: 1, attempt, offset, text } });
    delta(0, 'Your ');
    delta(5, 'ref');
    expect(liveReplies(live.entries(), []).writing).toEqual([{ runId: 'r1', turn: 1, text: 'Your ref' }]);
    live.apply({ type: 'message.delta_reset', reset: { runId: 'r1', turn: 1, attempt: 1 } });
    expect(liveReplies(live.entries(), []).writing).toEqual([]);
    delta(0, 'Your refund', 2);
    delta(0, 'Your refund is', 2); // a reconnection starts over with the whole text so far
    expect(liveReplies(live.entries(), []).writing).toEqual([{ runId: 'r1', turn: 1, text: 'Your refund is' }]);
    for (const runId of liveReplies(live.entries(), [assistant('r1')]).done) live.forget(runId);
    expect(live.entries()).toEqual([]);
  });
});
