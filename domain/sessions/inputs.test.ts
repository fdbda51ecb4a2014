import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CreateSessionInput, TurnInput, turnText } from './inputs.ts';

const agentId = '00000000-0000-4000-8000-000000000001';

describe('CreateSessionInput', () => {
  it('needs an agent reference and, without files, the initial message', () => {
    expect(v.is(CreateSessionInput, { agentId, initialMessage: 'Hi' })).toBe(true);
    expect(v.is(CreateSessionInput, { agentVersionId: agentId, initialMessage: 'Hi', files: [] })).toBe(true);
    expect(v.is(CreateSessionInput, { initialMessage: 'Hi' })).toBe(false);
    expect(v.is(CreateSessionInput, { agentId })).toBe(false);
    expect(v.is(CreateSessionInput, { agentId, initialMessage: ' \n ' })).toBe(false);
  });

  it('caps message text at 100,000 characters and refuses any file for now', () => {
    expect(v.is(CreateSessionInput, { agentId, initialMessage: 'x'.repeat(100_000) })).toBe(true);
    expect(v.is(CreateSessionInput, { agentId, initialMessage: 'x'.repeat(100_001) })).toBe(false);
    const files = v.safeParse(CreateSessionInput, { agentId, initialMessage: 'Hi', files: [{ name: 'a.txt' }] });
    expect(files.success).toBe(false);
    expect(files.issues?.[0].message).toBe('file attachments are not available yet');
  });
});

describe('TurnInput', () => {
  it('takes message or redactedInput, exactly one', () => {
    expect(turnText(v.parse(TurnInput, { message: 'a' }))).toBe('a');
    expect(turnText(v.parse(TurnInput, { redactedInput: 'b' }))).toBe('b');
    expect(v.is(TurnInput, { message: 'a', redactedInput: 'b' })).toBe(false);
    expect(v.is(TurnInput, {})).toBe(false);
    expect(v.is(TurnInput, { message: 'a', other: 1 })).toBe(false);
  });
});
