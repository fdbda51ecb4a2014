import { describe, expect, it } from 'vitest';
import { takeSseFrames } from './sse-frames.ts';

describe('takeSseFrames', () => {
  it('returns complete frames, skips keep-alives and keeps the incomplete tail', () => {
    const { frames, rest } = takeSseFrames('id: 1\nevent: run.completed\ndata: {"a":1}\n\n: keep-alive\n\nid: 2\nevent: run.fa');
    expect(frames).toEqual([{ id: '1', event: 'run.completed', data: '{"a":1}' }]);
    expect(rest).toBe('id: 2\nevent: run.fa');
    expect(takeSseFrames(`${rest}iled\ndata: {}\n\n`).frames).toEqual([{ id: '2', event: 'run.failed', data: '{}' }]);
  });

  it('reads a field with or without the space after its colon, the first of each name, and no other names', () => {
    const { frames } = takeSseFrames('event:a\ndata:{"x":":"}\nretry: 10\nevent: b\n\nid: 7\n\n');
    expect(frames).toEqual([
      { id: null, event: 'a', data: '{"x":":"}' },
      { id: '7', event: null, data: null },
    ]);
  });
});
