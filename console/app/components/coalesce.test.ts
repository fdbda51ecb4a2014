import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce.ts';

/** A task whose runs the test finishes one at a time. */
function controlledTask() {
  const finishers: Array<() => void> = [];
  let runs = 0;
  const task = () => {
    runs++;
    return new Promise<void>((resolve) => finishers.push(resolve));
  };
  const finishNext = async () => {
    finishers.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { task, finishNext, runs: () => runs };
}

describe('coalesce', () => {
  it('runs a burst of calls as the one in flight plus one more after it', async () => {
    const { task, finishNext, runs } = controlledTask();
    const refresh = coalesce(task);
    const burst = Array.from({ length: 50 }, () => refresh());
    expect(runs()).toBe(1);
    await finishNext();
    expect(runs()).toBe(2);
    await finishNext();
    await Promise.all(burst);
    expect(runs()).toBe(2);
  });

  it('runs again for a call that comes after the previous burst settled', async () => {
    const { task, finishNext, runs } = controlledTask();
    const refresh = coalesce(task);
    const first = refresh();
    await finishNext();
    await first;
    const second = refresh();
    expect(runs()).toBe(2);
    await finishNext();
    await second;
    expect(runs()).toBe(2);
  });

  it('keeps going after a failed run', async () => {
    let runs = 0;
    const refresh = coalesce(async () => {
      runs++;
      if (runs === 1) throw new Error('network down');
    });
    await refresh();
    await refresh();
    expect(runs).toBe(2);
  });
});
