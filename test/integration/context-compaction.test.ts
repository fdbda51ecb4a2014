import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextCompactions, modelInvocations, productEvents } from '../../db/schema/index.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import type { FakeModelServer, RecordedRequest } from '../fixtures/model-vendors/chat-server.ts';
import { countFakeTokens } from '../fixtures/model-vendors/chat-server.ts';
import type { ProviderType } from '../fixtures/model-vendors/script.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Long conversations (docs/decisions/context-compaction.md), end to end with a real worker and
 * the fake vendors, each given a 32,000-token window past which it answers as the real vendor
 * does: 60 turns of about 2,000 tokens each complete in one session, compacting before the
 * threshold, or (with `compactAtTokens: null`) when the vendor refuses the input.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;

const WINDOW = 32_000;
const TURNS = 60;
const MARKER = 'You compact the transcript';

beforeAll(async () => {
  f = await startRunApp();
  for (const type of TYPES) summarizeOnRequest(f.fakes[type]);
}, 120_000);
afterAll(() => f?.close());

const TYPES: ProviderType[] = ['vendor_a', 'vendor_b', 'vendor_c', 'gateway'];
const MODELS: Record<ProviderType, string> = {
  vendor_a: 'vendor_a/gpt-5.1',
  vendor_b: 'vendor_b/claude-sonnet-4-6',
  vendor_c: 'vendor_c/gemini-2.5-pro',
  gateway: 'gateway/openai/gpt-4o',
};

const isSummaryRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes(MARKER);

/**
 * The fake answers a turn with about 1,000 tokens of its own, and a summary request with a short
 * summary naming its number and the summary it was given, so a test can follow the chain.
 */
function summarizeOnRequest(fake: FakeModelServer) {
  let summaries = 0;
  fake.defaultReply = (request, lastUserText) => {
    if (!isSummaryRequest(request)) return { text: `Noted turn ${/turn (\d+)/.exec(lastUserText)?.[1] ?? '?'}: ${'r'.repeat(4_000)}` };
    summaries += 1;
    const previous = /SUMMARY-(\d+)/.exec(JSON.stringify(request.body))?.[1] ?? 'none';
    return { text: `SUMMARY-${summaries} (folds ${previous}): the user sent numbered turns; keep going.` };
  };
}

const ok = async (call: ReturnType<typeof f.call>, status = 200) => {
  const answer = await call;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
};

async function agentOn(type: ProviderType, context: Record<string, unknown>) {
  const key = `ctx-${type.replace('_', '-')}`;
  const presets = (await ok(f.call('GET', '/model-presets?limit=100'))).data as Array<{ key: string }>;
  if (!presets.some((preset) => preset.key === key)) {
    const provider = await ok(
      f.call('POST', '/model-providers', { key: `ctx-${type.replace('_', '-')}`, displayName: type, providerType: type, apiKey: FAKE_KEYS[type] }),
      201,
    );
    await ok(f.call('POST', '/model-presets', { key, displayName: key, providerId: provider.id, model: MODELS[type] }), 201);
  }
  const agent = await ok(
    f.call('POST', '/agents', {
      name: `Long ${type} ${Math.random()}`,
      initialConfig: { systemPrompt: 'Answer each turn.', modelPreset: key, limits: { maxTurns: 4 }, context },
    }),
    201,
  );
  return agent.id as string;
}

/** About 1,000 tokens of user text (the fake counts a quarter of the request's JSON length). */
const turnText = (turn: number) => `This is turn ${turn}. ${'u'.repeat(4_000)}`;

async function converse(type: ProviderType, context: Record<string, unknown>) {
  const agentId = await agentOn(type, context);
  const session = await ok(f.call('POST', '/sessions', { agentId, initialMessage: turnText(1) }), 201);
  const runIds = [session.run.id as string];
  expect((await f.waitForRun(session.run.id)).state).toBe('completed');
  for (let turn = 2; turn <= TURNS; turn++) {
    const run = await ok(f.call('POST', `/sessions/${session.id}/runs`, { message: turnText(turn) }), 202);
    const settled = await f.waitForRun(run.id);
    expect(settled.state, `turn ${turn}: ${JSON.stringify(settled.failure)}`).toBe('completed');
    runIds.push(run.id);
  }
  return { sessionId: session.id as string, runIds };
}

async function compactionEvents(sessionId: string) {
  const rows = await f.t.database.db
    .select()
    .from(productEvents)
    .where(and(eq(productEvents.sessionId, sessionId), eq(productEvents.kind, 'context.compacted')))
    .orderBy(asc(productEvents.projectPosition));
  return rows.map((row) => row.publicPayload as Record<string, number | string | null>);
}

describe.each(TYPES)('%s: 60 turns against a 32,000-token window', (type) => {
  const fake = () => f.fakes[type];
  beforeAll(() => {
    fake().contextWindow = WINDOW;
  });
  afterAll(() => {
    fake().contextWindow = null;
  });

  it('compacts before the threshold: every run completes, no request passes the window, every message stays readable', async () => {
    const before = fake().requests.length;
    const { sessionId, runIds } = await converse(type, { compactAtTokens: 24_000 });
    const requests = fake().requests.slice(before);
    // Proactive: the vendor never had to refuse anything.
    for (const request of requests) expect(countFakeTokens(type, request.body)).toBeLessThanOrEqual(WINDOW);

    const events = await compactionEvents(sessionId);
    expect(events.length).toBeGreaterThanOrEqual(3);
    events.forEach((event, index) => {
      expect(event).toMatchObject({ sessionId, compaction: index + 1, reason: 'threshold' });
      expect(runIds).toContain(event.runId);
      expect(Number(event.tokensAfter)).toBeLessThan(Number(event.tokensBefore));
      expect(Number(event.tokensBefore)).toBeGreaterThan(24_000);
      if (index > 0) expect(Number(event.messagesCovered)).toBeGreaterThan(Number(events[index - 1]!.messagesCovered));
    });

    // Every summary request after the first carries the summary before it.
    const summaries = requests.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThanOrEqual(events.length);
    for (const [index, request] of summaries.entries()) if (index > 0) expect(JSON.stringify(request.body)).toContain(`SUMMARY-`);

    // The raw transcript is whole: 60 user turns and 60 replies, in order.
    const detail = await ok(f.call('GET', `/sessions/${sessionId}`));
    expect(detail.transcript).toHaveLength(2 * TURNS);
    expect(detail.transcript.filter((message: { role: string }) => message.role === 'user').map((message: { text: string }) => message.text)).toEqual(
      Array.from({ length: TURNS }, (_, index) => turnText(index + 1)),
    );
    expect(detail.context).toMatchObject({ compactions: events.length });
    expect(detail.context.lastInputTokens).toBeGreaterThan(0);
    expect(detail.context.lastInputTokens).toBeLessThanOrEqual(WINDOW);
    expect(detail.debug.compactions.map((entry: { compaction: number }) => entry.compaction)).toEqual(events.map((event) => event.compaction));
    expect(detail.debug.compactions.at(-1).summary).toMatch(/^SUMMARY-\d+/);
    // The summary calls are model invocations like the others: recorded, counted, not announced.
    const summaryCalls = await f.t.database.db
      .select()
      .from(modelInvocations)
      .where(eq(modelInvocations.runId, String(events[0]!.runId)));
    expect(summaryCalls.filter((row) => row.turnId.startsWith('compact:')).every((row) => row.status === 'succeeded' && row.inputTokens > 0)).toBe(true);
    const last = await ok(f.call('GET', `/runs/${runIds.at(-1)}/messages?limit=200`));
    expect(last.data.length).toBeGreaterThan(0);
  }, 300_000);

  it('with compactAtTokens null, compacts when the vendor refuses the input, and the turn is retried after it', async () => {
    const before = fake().requests.length;
    const { sessionId } = await converse(type, { compactAtTokens: null });
    const requests = fake()
      .requests.slice(before)
      .filter((request) => !isSummaryRequest(request));
    const refused = requests.filter((request) => countFakeTokens(type, request.body) > WINDOW);
    const events = await compactionEvents(sessionId);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.every((event) => event.reason === 'overflow')).toBe(true);
    // One refusal per compaction, and the request after each refusal fits.
    expect(refused).toHaveLength(events.length);
    for (const request of refused) {
      const next = requests[requests.indexOf(request) + 1];
      expect(next && countFakeTokens(type, next.body)).toBeLessThanOrEqual(WINDOW);
    }
    const detail = await ok(f.call('GET', `/sessions/${sessionId}`));
    expect(detail.transcript).toHaveLength(2 * TURNS);
    const failedAttempts = detail.debug.modelInvocations.filter((row: { errorCode: string | null }) => row.errorCode === 'provider_context_overflow');
    expect(failedAttempts).toHaveLength(events.length);
  }, 300_000);
});

describe('the limit', () => {
  it('a window too small for even the newest turn fails the run with context_limit_reached after at most maxCompactionsPerRun compactions', async () => {
    const fake = f.fakes.vendor_b;
    const agentId = await agentOn('vendor_b', { compactAtTokens: null, maxCompactionsPerRun: 2 });
    const session = await ok(f.call('POST', '/sessions', { agentId, initialMessage: turnText(1) }), 201);
    expect((await f.waitForRun(session.run.id)).state).toBe('completed');
    await ok(f.call('POST', `/sessions/${session.id}/runs`, { message: turnText(2) }), 202);
    const second = (await ok(f.call('GET', `/sessions/${session.id}`))).runs.at(-1).id as string;
    await f.waitForRun(second);
    // Now a window that not even one turn fits.
    fake.contextWindow = 600;
    try {
      const run = await ok(f.call('POST', `/sessions/${session.id}/runs`, { message: turnText(3) }), 202);
      const settled = await f.waitForRun(run.id);
      expect(settled.state).toBe('failed');
      expect(settled.failure.errorCode).toBe('context_limit_reached');
      expect(settled.failure.errorExplanation).toMatch(/about \d+ tokens/);
      const steps = await f.t.database.db.select().from(contextCompactions).where(eq(contextCompactions.runId, run.id));
      expect(steps.length).toBeLessThanOrEqual(2);
    } finally {
      fake.contextWindow = null;
    }
  }, 120_000);
});

describe('bad input', () => {
  it.each([
    [{ compactAtTokens: 10 }, 'body.config.context.compactAtTokens'],
    [{ compactAtTokens: 'many' }, 'body.config.context.compactAtTokens'],
    [{ keepRecentTurns: 0 }, 'body.config.context.keepRecentTurns'],
    [{ keepRecentTurns: 2.5 }, 'body.config.context.keepRecentTurns'],
    [{ maxCompactionsPerRun: -1 }, 'body.config.context.maxCompactionsPerRun'],
    [{ maxCompactionsPerRun: 21 }, 'body.config.context.maxCompactionsPerRun'],
    [{ summaryPreset: '' }, 'body.config.context.summaryPreset'],
    [{ summaryPreset: 'no-such-preset' }, 'body.config.context.summaryPreset'],
    [{ windowShare: 0.5 }, 'body.config.context.windowShare'],
  ])('%j is a 400 naming %s', async (context, path) => {
    const agent = await ok(
      f.call('POST', '/agents', { name: `Bad ${Math.random()}`, initialConfig: { systemPrompt: 'x', modelPreset: 'fast', limits: { maxTurns: 1 } } }),
      201,
    );
    const answer = await f.call('POST', `/agents/${agent.id}/versions`, {
      config: { systemPrompt: 'x', modelPreset: 'fast', limits: { maxTurns: 1 }, context },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error.details.path).toBe(path);
  });

  it('a version with context publishes and reads back as given (defaults stay unstored)', async () => {
    const config = { systemPrompt: 'Hash me.', modelPreset: 'fast', limits: { maxTurns: 1 } };
    const withContext = await ok(
      f.call('POST', '/agents', { name: `Ctx ${Math.random()}`, initialConfig: { ...config, context: { keepRecentTurns: 3, summaryPreset: 'fast' } } }),
      201,
    );
    expect(withContext.versions[0].config.context).toEqual({ keepRecentTurns: 3, summaryPreset: 'fast' });
    const plain = await ok(f.call('POST', '/agents', { name: `Plain ${Math.random()}`, initialConfig: config }), 201);
    expect(plain.versions[0].config).not.toHaveProperty('context');
  });
});
