import { describe, expect, it } from 'vitest';
import { toModelMessages } from './model-messages.ts';

const call = (id: string, name = 'lookup_order') => ({ id, name, arguments: {}, argumentsText: '{}' });
const stored = (role: string, content: Record<string, unknown>) => ({ role, runId: 'run-1', content });

describe('toModelMessages', () => {
  it('answers a tool call its cancelled run left open with tool_cancelled, after the results its turn got', () => {
    const messages = toModelMessages([
      stored('user', { text: 'Look up A1 and B2' }),
      stored('assistant', { text: '', toolCalls: [call('c1'), call('c2')] }),
      stored('tool', { toolCallId: 'c1', toolName: 'lookup_order', result: { status: 'shipped' }, isError: false }),
      // The run was interrupted while c2 waited; the next turn starts with the user's message.
      stored('user', { text: 'Stop, just say hi' }),
    ]);
    expect(messages.map((message) => (message.role === 'tool' ? `tool:${message.toolCallId}:${message.isError}` : message.role))).toEqual([
      'user',
      'assistant',
      'tool:c1:false',
      'tool:c2:true',
      'user',
    ]);
    expect(messages[3]).toMatchObject({ role: 'tool', toolName: 'lookup_order', result: { code: 'tool_cancelled' } });
  });

  it('leaves an answered transcript as it is, and the last turn’s open calls open', () => {
    const answered = [
      stored('user', { text: 'Look up A1' }),
      stored('assistant', { text: '', toolCalls: [call('c1')] }),
      stored('tool', { toolCallId: 'c1', toolName: 'lookup_order', result: { status: 'shipped' }, isError: false }),
      stored('assistant', { text: 'Shipped.' }),
    ];
    expect(toModelMessages(answered)).toHaveLength(4);
    expect(toModelMessages(answered.slice(0, 2))).toHaveLength(2);
  });
});
