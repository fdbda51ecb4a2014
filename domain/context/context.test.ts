import { describe, expect, it } from 'vitest';
import { parseAgentConfig } from '../agent-config/index.ts';
import { canonicalAgentConfig } from '../agent-config/index.ts';
import { contextTokens, estimateMessagesTokens, judgeSummary, maxKeptTokens, planCompaction, resolveContextPolicy, summaryRequestText } from './index.ts';

const minimal = { systemPrompt: 'Be brief.', modelPreset: 'default', limits: { maxTurns: 4 } };

type Message = { role: string; sequence: number; content: Record<string, unknown> };
let sequence = 0;
const user = (text: string): Message => ({ role: 'user', sequence: ++sequence, content: { text } });
const reply = (text: string, toolCalls: unknown[] = []): Message => ({ role: 'assistant', sequence: ++sequence, content: { text, toolCalls } });
const result = (id: string, value: unknown): Message => ({
  role: 'tool',
  sequence: ++sequence,
  content: { toolCallId: id, toolName: 'look', result: value, isError: false },
});

describe('the context policy', () => {
  it('defaults to 80 % of a known window, null for an unknown one, and an explicit null wins', () => {
    expect(resolveContextPolicy(undefined, { contextWindow: 200_000, modelPreset: 'fast' })).toEqual({
      compactAtTokens: 160_000,
      keepRecentTurns: 2,
      maxCompactionsPerRun: 3,
      summaryPreset: 'fast',
    });
    expect(resolveContextPolicy(undefined, { contextWindow: null, modelPreset: 'fast' }).compactAtTokens).toBeNull();
    expect(resolveContextPolicy({ compactAtTokens: null }, { contextWindow: 200_000, modelPreset: 'fast' }).compactAtTokens).toBeNull();
    expect(resolveContextPolicy({ compactAtTokens: 5_000, summaryPreset: 'cheap' }, { contextWindow: 200_000, modelPreset: 'fast' })).toMatchObject({
      compactAtTokens: 5_000,
      summaryPreset: 'cheap',
    });
  });

  it('is optional in the config, so a config without it hashes as before', () => {
    expect(canonicalAgentConfig(parseAgentConfig(minimal))).not.toContain('context');
    expect(parseAgentConfig({ ...minimal, context: { keepRecentTurns: 4 } }).context).toEqual({ keepRecentTurns: 4 });
  });

  it.each([
    [{ compactAtTokens: 999 }, 'config.context.compactAtTokens'],
    [{ keepRecentTurns: 0 }, 'config.context.keepRecentTurns'],
    [{ maxCompactionsPerRun: 21 }, 'config.context.maxCompactionsPerRun'],
    [{ summaryPreset: '' }, 'config.context.summaryPreset'],
    [{ other: 1 }, 'config.context.other'],
  ])('refuses %j at %s', (context, path) => {
    expect(() => parseAgentConfig({ ...minimal, context })).toThrow(expect.objectContaining({ details: expect.objectContaining({ path }) }));
  });
});

describe('the token estimate', () => {
  it('adds the estimate of what came after the vendor-counted request to the count', () => {
    const messages = [user('a'.repeat(400)), reply('b'.repeat(400)), user('c'.repeat(400))];
    const whole = contextTokens({ counted: null, prefixTokens: 50, summaryTokens: 0, messages });
    expect(whole).toBe(50 + estimateMessagesTokens(messages));
    const counted = contextTokens({ counted: { tokens: 1_000, throughSequence: messages[1]!.sequence }, prefixTokens: 50, summaryTokens: 0, messages });
    expect(counted).toBe(1_000 + estimateMessagesTokens([messages[2]!]));
  });
});

describe('where a compaction cuts', () => {
  it('keeps the last keepRecentTurns user turns with everything after them', () => {
    const messages = [user('one'), reply('r1'), user('two'), reply('r2'), user('three'), reply('r3'), user('four')];
    const plan = planCompaction(messages, { keepRecentTurns: 2, maxKeptTokens: 10_000 })!;
    expect(plan.kept.map((message) => message.content.text)).toEqual(['three', 'r3', 'four']);
    expect(plan.covered.map((message) => message.content.text)).toEqual(['one', 'r1', 'two', 'r2']);
    expect(plan.throughSequence).toBe(messages[3]!.sequence);
  });

  it('never separates a tool call from its results, and moves the cut later when the kept part is too large', () => {
    const call = { id: 'c1', name: 'look', arguments: {}, argumentsText: '{}' };
    const messages = [
      user('task'),
      reply('', [call]),
      result('c1', 'x'.repeat(4_000)),
      reply('', [call]),
      result('c1', 'y'.repeat(4_000)),
      reply('', [call]),
      result('c1', 'z'),
    ];
    const plan = planCompaction(messages, { keepRecentTurns: 2, maxKeptTokens: 500 })!;
    expect(plan.kept[0]!.role).toBe('assistant');
    expect(plan.kept.map((message) => message.role)).toEqual(['assistant', 'tool']);
    expect(estimateMessagesTokens(plan.kept)).toBeLessThanOrEqual(500);
  });

  it('has nothing to cover when the newest turn is all there is', () => {
    expect(planCompaction([user('only')], { keepRecentTurns: 2, maxKeptTokens: 10 })).toBeNull();
  });

  it('keeps at most half the threshold (half the turn when the threshold is unknown)', () => {
    expect(maxKeptTokens(24_000, 30_000)).toBe(12_000);
    expect(maxKeptTokens(null, 30_000)).toBe(15_000);
  });
});

describe('the summary', () => {
  it('asks with the previous summary and the covered transcript, and is kept only when shorter than both', () => {
    const covered = [user('The deploy target is /srv/app.'), reply('Noted.')];
    const text = summaryRequestText('Earlier: the user wants a deploy.', covered);
    expect(text).toContain('Earlier: the user wants a deploy.');
    expect(text).toContain('[user] The deploy target is /srv/app.');
    expect(judgeSummary('  ', text)).toMatchObject({ accepted: false });
    expect(judgeSummary(text + text, text)).toMatchObject({ accepted: false });
    expect(judgeSummary('Deploy to /srv/app.', text)).toEqual({ accepted: true, summary: 'Deploy to /srv/app.' });
  });
});
