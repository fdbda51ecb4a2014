import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { acceptTurnFiles, CreateSessionInput, FollowUpInput, hasFirstTurn, TurnInput, turnText } from './inputs.ts';

const agentId = '00000000-0000-4000-8000-000000000001';

describe('CreateSessionInput', () => {
  it('needs an agent reference; without a message or files it describes an idle session', () => {
    expect(v.is(CreateSessionInput, { agentId, initialMessage: 'Hi' })).toBe(true);
    expect(v.is(CreateSessionInput, { agentVersionId: agentId, initialMessage: 'Hi', files: [] })).toBe(true);
    expect(v.is(CreateSessionInput, { initialMessage: 'Hi' })).toBe(false);
    expect(v.is(CreateSessionInput, { agentId, initialMessage: ' \n ' })).toBe(false);
    for (const idle of [{ agentId }, { agentId, files: [] }, { agentId, title: 'Later' }]) {
      expect(v.is(CreateSessionInput, idle)).toBe(true);
      expect(hasFirstTurn(idle)).toBe(false);
    }
    expect(hasFirstTurn({ initialMessage: 'Hi' })).toBe(true);
    expect(hasFirstTurn({ files: [{}] })).toBe(true);
  });

  it('caps message text at 100,000 characters and leaves file rules to acceptTurnFiles', () => {
    expect(v.is(CreateSessionInput, { agentId, initialMessage: 'x'.repeat(100_000) })).toBe(true);
    expect(v.is(CreateSessionInput, { agentId, initialMessage: 'x'.repeat(100_001) })).toBe(false);
    expect(v.is(CreateSessionInput, { agentId, initialMessage: 'Hi', files: 'a.txt' })).toBe(false);
    expect(v.is(CreateSessionInput, { agentId, files: [{ name: 'a.txt' }] })).toBe(true);
    expect(() => acceptTurnFiles([{ name: 'a.txt' }])).toThrow(expect.objectContaining({ details: { path: 'body.files.0.contentType' } }));
    const [file] = acceptTurnFiles([{ name: 'a.md', contentType: 'application/octet-stream', dataBase64: 'YQ==' }]);
    expect(file).toMatchObject({ name: 'a.md', contentType: 'text/markdown', fileClass: 'text', sizeBytes: 1 });
  });
});

describe('FollowUpInput', () => {
  it('is a turn plus ifBusy: reject, enqueue or interrupt', () => {
    for (const ifBusy of ['reject', 'enqueue', 'interrupt']) expect(v.is(FollowUpInput, { message: 'Hi', ifBusy })).toBe(true);
    expect(v.is(FollowUpInput, { message: 'Hi', ifBusy: 'later' })).toBe(false);
    expect(v.is(FollowUpInput, { ifBusy: 'enqueue' })).toBe(false);
    // Resume keeps the strict turn body: ifBusy is not one of its fields.
    expect(v.is(TurnInput, { message: 'Hi', ifBusy: 'enqueue' })).toBe(false);
  });
});

describe('TurnInput', () => {
  it('takes message or redactedInput, exactly one; a files-only turn records a neutral message', () => {
    expect(turnText(v.parse(TurnInput, { files: [{}] }))).toBe('Attached files.');
    expect(turnText(v.parse(TurnInput, { message: 'a' }))).toBe('a');
    expect(turnText(v.parse(TurnInput, { redactedInput: 'b' }))).toBe('b');
    expect(v.is(TurnInput, { message: 'a', redactedInput: 'b' })).toBe(false);
    expect(v.is(TurnInput, {})).toBe(false);
    expect(v.is(TurnInput, { message: 'a', other: 1 })).toBe(false);
  });
});
