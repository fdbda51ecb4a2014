import { describe, expect, it } from 'vitest';
import { ConcurrentSlots } from './concurrent-slots.ts';

describe('ConcurrentSlots', () => {
  it('takes a place under every key or none, and gives each back once', () => {
    const slots = new ConcurrentSlots();
    const claims = (key: string) => [
      { key, max: 2 },
      { key: 'project', max: 3 },
    ];
    const a = slots.take(claims('a'));
    const b = slots.take(claims('a'));
    expect(a.taken && b.taken).toBe(true);
    expect(slots.take(claims('a'))).toEqual({ taken: false, index: 0 });
    const c = slots.take(claims('c'));
    expect(c.taken).toBe(true);
    expect(slots.take(claims('d'))).toEqual({ taken: false, index: 1 });
    // A refused take held nothing.
    expect(slots.held('d')).toBe(0);
    expect(slots.held('project')).toBe(3);
    if (!a.taken) throw new Error('unreachable');
    a.release();
    a.release();
    expect(slots.held('a')).toBe(1);
    expect(slots.held('project')).toBe(2);
    expect(slots.take(claims('d')).taken).toBe(true);
  });

  it('forgets a key once nothing is held under it', () => {
    const slots = new ConcurrentSlots();
    const taken = slots.take([{ key: 'a', max: 1 }]);
    if (!taken.taken) throw new Error('unreachable');
    taken.release();
    expect(slots.held('a')).toBe(0);
    expect(slots.take([{ key: 'a', max: 1 }]).taken).toBe(true);
  });
});
