import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ProductEvent } from '../event-feed.ts';
import { RunProgress } from './progress.ts';

const output = (isTTY: boolean) => {
  const chunks: string[] = [];
  const stream = Object.assign(new Writable({ write: (chunk, _encoding, done) => (chunks.push(String(chunk)), done()) }), { isTTY });
  return { stream, text: () => chunks.join('') };
};
const event = (kind: string): ProductEvent => ({
  id: crypto.randomUUID(),
  organizationId: crypto.randomUUID(),
  projectId: crypto.randomUUID(),
  aggregateType: 'run',
  aggregateId: crypto.randomUUID(),
  aggregateSequence: 1,
  projectPosition: '1',
  kind,
  publicPayload: {},
  occurredAt: new Date().toISOString(),
});

describe('the progress of a followed run', () => {
  it('counts model calls, tool calls and approvals, and ends with one summary line', () => {
    let now = 1_000;
    const { stream, text } = output(false);
    const progress = new RunProgress(stream, () => now);
    for (const kind of [
      'run.running',
      'model.call_started',
      'tool_call.created',
      'approval.requested',
      'model.call_started',
      'run.cancellation_requested',
      'run.completed',
    ])
      progress.event(event(kind), kind);
    now = 4_250;
    progress.finish();
    // Piped output: the event lines as they came, no terminal control codes, then the summary.
    expect(text()).toBe(
      'run.running\nmodel.call_started\ntool_call.created\napproval.requested\nmodel.call_started\nrun.cancellation_requested\nrun.completed\nrun completed · 2 model calls · 1 tool call · 1 approval · 3.3 s\n',
    );
  });

  it('keeps a status line at the bottom of a terminal, cleared before each event line', () => {
    const { stream, text } = output(true);
    const progress = new RunProgress(stream, () => 0);
    progress.event(event('run.waiting_for_tool'), '  tool wait');
    progress.finish();
    const written = text();
    expect(written).toContain('\r\x1b[2K  tool wait\n');
    expect(written).toMatch(/\r\x1b\[2K. waiting for tool · 0 model calls · 0 tool calls · 0\.0 s/);
    expect(written.endsWith('\r\x1b[2Krun waiting for tool · 0 model calls · 0 tool calls · 0.0 s\n')).toBe(true);
  });
});
