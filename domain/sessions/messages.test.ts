import { describe, expect, it } from 'vitest';
import { eventMessageOf, toPublicMessageContent } from './messages.ts';

describe('toPublicMessageContent', () => {
  it('shows user text and the final assistant reply', () => {
    expect(toPublicMessageContent('user', { text: 'Hi' })).toEqual({ text: 'Hi', toolCalls: [], toolResult: null, attachments: [] });
    expect(toPublicMessageContent('assistant', { text: 'Done.', toolCalls: [] })).toEqual({ text: 'Done.', toolCalls: [], toolResult: null, attachments: [] });
  });

  it('summarizes tool calls and results without arguments, results or intermediate text', () => {
    const call = toPublicMessageContent('assistant', {
      text: 'Checking',
      toolCalls: [{ id: 'c1', name: 'lookup', arguments: { secret: 1 }, argumentsText: '{"secret":1}' }],
    });
    expect(call).toEqual({ text: null, toolCalls: [{ toolCallId: 'c1', toolName: 'lookup' }], toolResult: null, attachments: [] });
    const result = toPublicMessageContent('tool', { toolCallId: 'c1', toolName: 'lookup', result: { secret: 2 }, isError: true });
    expect(result).toEqual({ text: null, toolCalls: [], toolResult: { toolCallId: 'c1', toolName: 'lookup', isError: true }, attachments: [] });
    expect(JSON.stringify([call, result])).not.toContain('secret');
  });

  it('shows attachment metadata of user messages and drops malformed entries', () => {
    const file = {
      id: 'a1',
      filename: 'notes.md',
      contentType: 'text/markdown',
      sizeBytes: 12,
      sha256: 'ab'.repeat(32),
      createdAt: '2026-11-22T00:00:00.000Z',
    };
    const view = toPublicMessageContent('user', { text: 'See file', attachments: [file, { id: 'broken' }, null], bytes: 'never' });
    expect(view).toEqual({ text: 'See file', toolCalls: [], toolResult: null, attachments: [file] });
  });

  it('tolerates malformed stored content', () => {
    expect(toPublicMessageContent('assistant', { toolCalls: [null, 'x', { id: 3 }] })).toEqual({
      text: null,
      toolCalls: [{ toolCallId: '', toolName: '' }],
      toolResult: null,
      attachments: [],
    });
    expect(toPublicMessageContent('user', {})).toEqual({ text: null, toolCalls: [], toolResult: null, attachments: [] });
  });
});

describe('eventMessageOf', () => {
  it('offers only user text and final replies to opted-in consumers', () => {
    const base = { id: 'm', runId: 'r' };
    expect(eventMessageOf({ ...base, role: 'user', content: { text: 'Hi' } })).toEqual({ id: 'm', runId: 'r', role: 'user', content: { text: 'Hi' } });
    expect(eventMessageOf({ ...base, role: 'assistant', content: { text: 'x', toolCalls: [{ id: 'c', name: 'n' }] } })).toBeNull();
    expect(eventMessageOf({ ...base, role: 'tool', content: { toolCallId: 'c', toolName: 'n', result: 1 } })).toBeNull();
  });
});
