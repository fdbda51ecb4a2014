import { describe, expect, it } from 'vitest';
import { toolErrorOf, toolResultOf } from './tool-results.ts';

const where = { projectId: 'p1', sessionId: 's1', runId: 'r1' };

describe('toolResultOf', () => {
  it('answers a completed run with its text and the conversation to continue', () => {
    expect(toolResultOf({ kind: 'completed', ...where, answer: 'Done.' })).toEqual({
      content: [{ type: 'text', text: 'Done.' }],
      structuredContent: { answer: 'Done.', sessionId: 's1', runId: 'r1', state: 'completed' },
    });
  });

  it('answers a run that did not complete as a tool error with its failure', () => {
    const failure = { errorCode: 'run_timed_out', errorExplanation: 'The run did not settle before its deadline.' };
    const result = toolResultOf({ kind: 'ended', ...where, state: 'timed_out', failure });
    expect(result).toMatchObject({ isError: true, structuredContent: { sessionId: 's1', runId: 'r1', state: 'timed_out', failure } });
    expect(result.content[0]!.text).toBe('The run timed out (run_timed_out): The run did not settle before its deadline. Conversation: sessionId s1, run r1.');
  });

  it('names what a waiting run waits for and the routes that answer it', () => {
    const approval = { id: 'a1', toolName: 'refund', toolCallId: 't1', expiresAt: '2026-01-02T00:00:00.000Z' };
    const gated = toolResultOf({ kind: 'waiting', ...where, state: 'waiting_for_approval', toolCalls: [], approvals: [approval] });
    expect(gated).toMatchObject({ isError: true, structuredContent: { state: 'waiting_for_approval', waitingFor: { toolCalls: [], approvals: [approval] } } });
    expect(gated.content[0]!.text).toContain('- approval a1 of a call of tool "refund"');
    expect(gated.content[0]!.text).toContain('POST /v1/projects/p1/approvals/{approvalId}/decision');
    expect(gated.content[0]!.text).toContain('GET /v1/projects/p1/runs/r1');

    const waiting = toolResultOf({ kind: 'waiting', ...where, state: 'waiting_for_tool', toolCalls: [{ id: 't2', toolName: 'lookup' }], approvals: [] });
    expect(waiting.content[0]!.text).toContain('- tool call t2 of tool "lookup"');
    expect(waiting.content[0]!.text).toContain('POST /v1/projects/p1/tool-calls/{toolCallId}/result');
  });

  it('makes refusals before any run plain tool errors', () => {
    expect(toolErrorOf('The "message" argument is required')).toEqual({
      content: [{ type: 'text', text: 'The "message" argument is required' }],
      isError: true,
    });
  });
});
