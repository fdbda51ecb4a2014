import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelInvocations, productEvents, runs as runsTable } from '../../db/schema/index.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import type { ProviderType, ScriptedUsage } from '../fixtures/model-vendors/script.ts';
import { addNumbersTool } from '../support/platform-tools.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Prices, cost, budgets and the usage ledger (issue 35, parts 2-4), end to end: a real worker
 * and the fake vendors, each answering in its own wire format.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;

const PRICES = { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 2.5 };

beforeAll(async () => {
  f = await startRunApp({ platformTools: { add_numbers: async () => ({ status: 'success', value: { sum: 2 } }) } });
}, 120_000);
afterAll(() => f?.close());

type Call = typeof f.call;
const ok = async (call: ReturnType<Call>, status = 200) => {
  const answer = await call;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
};

/** A priced preset of `type` (the seeded vendor_a `fast` is priced by PATCH) and an agent on it. */
async function pricedAgent(type: ProviderType, prices: Record<string, number> = PRICES, config: Record<string, unknown> = {}) {
  const presets = (await ok(f.call('GET', '/model-presets?limit=100'))).data as Array<{ id: string; key: string }>;
  let key = `priced-${type.replace('_', '-')}`;
  if (type === 'vendor_a') {
    key = 'fast';
    await ok(f.call('PATCH', `/model-presets/${presets.find((preset) => preset.key === 'fast')!.id}`, { prices }));
  } else if (!presets.some((preset) => preset.key === key)) {
    const model = { vendor_b: 'vendor_b/claude-sonnet-4-6', vendor_c: 'vendor_c/gemini-2.5-pro', gateway: 'gateway/openai/gpt-4o' }[type];
    const provider = await ok(
      f.call('POST', '/model-providers', { key: `p-${type.replace('_', '-')}`, displayName: type, providerType: type, apiKey: FAKE_KEYS[type] }),
      201,
    );
    await ok(f.call('POST', '/model-presets', { key, displayName: key, providerId: provider.id, model, prices }), 201);
  }
  const agent = await ok(
    f.call('POST', '/agents', {
      name: `Priced ${type} ${Math.random()}`,
      initialConfig: { systemPrompt: 'Answer.', modelPreset: key, limits: { maxTurns: 4 }, ...config },
    }),
    201,
  );
  return agent.id as string;
}

const settledEvent = async (runId: string) => {
  const [event] = await f.t.database.db
    .select()
    .from(productEvents)
    .where(and(eq(productEvents.aggregateId, runId), inArray(productEvents.kind, ['run.completed', 'run.failed'])));
  return event!.publicPayload as Record<string, unknown>;
};

describe('prices and cost', () => {
  // Each vendor reports cache tokens its own way: vendor_a, vendor_c and the gateway count them
  // inside the input tokens, vendor_b beside them. The cost is worked out by hand from the
  // vendor's own numbers, at 2 / 10 / 0.5 / 2.5 per million (input / output / cache read / write).
  const cases: Array<{ type: ProviderType; usage: ScriptedUsage; tokens: Record<string, number>; cost: number }> = [
    // 600 uncached × 2 + 400 cached × 0.5 + 200 out × 10 = 3,400 per million.
    {
      type: 'vendor_a',
      usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 400 },
      tokens: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 400, cacheWriteTokens: 0 },
      cost: 0.0034,
    },
    // input_tokens is the uncached part: 600 × 2 + 400 × 0.5 + 100 × 2.5 + 200 × 10 = 3,650.
    {
      type: 'vendor_b',
      usage: { inputTokens: 600, outputTokens: 200, cacheReadTokens: 400, cacheWriteTokens: 100 },
      tokens: { inputTokens: 1100, outputTokens: 200, cacheReadTokens: 400, cacheWriteTokens: 100 },
      cost: 0.00365,
    },
    // Thoughts bill as output: 600 × 2 + 400 × 0.5 + (200 + 50) × 10 = 3,900.
    {
      type: 'vendor_c',
      usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 400, reasoningTokens: 50 },
      tokens: { inputTokens: 1000, outputTokens: 250, cacheReadTokens: 400, cacheWriteTokens: 0 },
      cost: 0.0039,
    },
    // prompt_tokens holds both cache figures: 500 × 2 + 400 × 0.5 + 100 × 2.5 + 200 × 10 = 3,450.
    {
      type: 'gateway',
      usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 400, cacheWriteTokens: 100 },
      tokens: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 400, cacheWriteTokens: 100 },
      cost: 0.00345,
    },
  ];

  it.each(cases)(
    '$type: the cost equals the tokens at the preset prices, on the run, the session, the attempt and the settled event',
    async ({ type, usage, tokens, cost }) => {
      const agentId = await pricedAgent(type);
      f.fakes[type].reply({ text: 'Priced answer.', usage });
      const session = await ok(f.call('POST', '/sessions', { agentId, initialMessage: 'What does this cost?' }), 201);
      const run = await f.waitForRun(session.run.id);
      expect(run).toMatchObject({ state: 'completed', ...tokens, cost });
      const detail = await ok(f.call('GET', `/sessions/${session.id}`));
      expect(detail).toMatchObject({ ...tokens, cost });
      expect(detail.debug.modelInvocations).toEqual([expect.objectContaining({ status: 'succeeded', ...tokens, cost })]);
      const { cost: eventCost, ...usageShown } = { ...tokens, cost };
      expect(await settledEvent(run.id)).toMatchObject({ state: 'completed', usage: usageShown, cost: eventCost });
    },
    60_000,
  );

  it('a gateway preset takes the catalog prices; an operator replaces them for later calls; bad prices are a 400', async () => {
    const provider = await ok(
      f.call('POST', '/model-providers', { key: 'router-catalog', displayName: 'Router', providerType: 'gateway', apiKey: FAKE_KEYS.gateway }),
      201,
    );
    // The fake catalog publishes 0.000003 / 0.000015 USD per token for this model.
    const preset = await ok(
      f.call('POST', '/model-presets', {
        key: 'catalog-priced',
        displayName: 'Catalog priced',
        providerId: provider.id,
        model: 'gateway/anthropic/claude-sonnet-4.5',
      }),
      201,
    );
    expect(preset.prices).toEqual({ input: 3, output: 15, cacheRead: null, cacheWrite: null, source: 'catalog' });
    const unpriced = await ok(
      f.call('POST', '/model-presets', {
        key: 'kept-unpriced',
        displayName: 'Unpriced',
        providerId: provider.id,
        model: 'gateway/anthropic/claude-sonnet-4.5',
        prices: null,
      }),
      201,
    );
    expect(unpriced.prices).toBeNull();

    const agent = await ok(
      f.call('POST', '/agents', {
        name: `Catalog ${Math.random()}`,
        initialConfig: { systemPrompt: 'Answer.', modelPreset: 'catalog-priced', limits: { maxTurns: 4 } },
      }),
      201,
    );
    f.fakes.gateway.reply({ text: 'At catalog prices.', usage: { inputTokens: 1000, outputTokens: 100 } });
    const first = await f.waitForRun((await ok(f.call('POST', '/sessions', { agentId: agent.id, initialMessage: 'One.' }), 201)).run.id);
    expect(first.cost).toBe(0.0045); // 1,000 × 3 + 100 × 15 per million

    const changed = await ok(f.call('PATCH', `/model-presets/${preset.id}`, { prices: { input: 1, output: 1 } }));
    expect(changed.prices).toEqual({ input: 1, output: 1, cacheRead: null, cacheWrite: null, source: 'operator' });
    f.fakes.gateway.reply({ text: 'At the new prices.', usage: { inputTokens: 1000, outputTokens: 100 } });
    const second = await f.waitForRun((await ok(f.call('POST', '/sessions', { agentId: agent.id, initialMessage: 'Two.' }), 201)).run.id);
    expect(second.cost).toBe(0.0011);
    // The first run keeps the cost it was charged.
    expect((await ok(f.call('GET', `/runs/${first.id}`))).cost).toBe(0.0045);

    for (const prices of [{ input: -1, output: 1 }, { input: 1 }, { input: 1, output: 1, cacheRead: 'cheap' }, { input: 1, output: 2_000_000 }]) {
      const refused = await f.call('PATCH', `/model-presets/${preset.id}`, { prices });
      expect(refused.status, JSON.stringify(prices)).toBe(400);
      expect(refused.body.error.code).toBe('bad_request');
    }
    expect((await f.call('PATCH', `/model-presets/00000000-0000-4000-8000-000000000000`, { prices: null })).status).toBe(404);
  }, 60_000);
});

describe('budgets', () => {
  // 1,000 input × 2 + 100 output × 10 = 3,000 per million: 0.003 a call.
  const USAGE = { inputTokens: 1000, outputTokens: 100 };

  it('a session budget that allows two turns fails the third without a provider request; raising it lets a follow-up continue', async () => {
    const agentId = await pricedAgent('vendor_a');
    f.fakes.vendor_a.reply({ text: 'First.', usage: USAGE }).reply({ text: 'Second.', usage: USAGE });
    const session = await ok(f.call('POST', '/sessions', { agentId, initialMessage: 'One.', budget: { maxCost: 0.005 } }), 201);
    expect(session.budget).toEqual({ maxCost: 0.005, maxTokens: null });
    await f.waitForRun(session.run.id);
    const second = await ok(f.call('POST', `/sessions/${session.id}/runs`, { message: 'Two.' }), 202);
    expect(await f.waitForRun(second.id)).toMatchObject({ state: 'completed', cost: 0.003 });

    const requestsBefore = f.fakes.vendor_a.requests.length;
    const third = await ok(f.call('POST', `/sessions/${session.id}/runs`, { message: 'Three.' }), 202);
    const failed = await f.waitForRun(third.id);
    expect(failed).toMatchObject({ state: 'failed', cost: 0, inputTokens: 0, failure: { errorCode: 'budget_exceeded' } });
    expect(failed.failure.errorExplanation).toBe("The session's budget of 0.005 USD is spent (0.006 USD used); raise it to continue.");
    expect(f.fakes.vendor_a.requests.length).toBe(requestsBefore);
    expect(await settledEvent(third.id)).toMatchObject({ state: 'failed', cost: 0, failure: { errorCode: 'budget_exceeded' } });
    const [invocationFailed] = await f.t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateId, third.id), eq(productEvents.kind, 'model.invocation_failed')));
    expect(invocationFailed!.publicPayload).toMatchObject({ errorCode: 'budget_exceeded' });

    const raised = await ok(f.call('PATCH', `/sessions/${session.id}`, { budget: { maxCost: 0.02 } }));
    expect(raised).toMatchObject({ budget: { maxCost: 0.02, maxTokens: null }, cost: 0.006 });
    f.fakes.vendor_a.reply({ text: 'Continued.', usage: USAGE });
    const fourth = await ok(f.call('POST', `/sessions/${session.id}/runs`, { message: 'Go on.' }), 202);
    expect(await f.waitForRun(fourth.id)).toMatchObject({ state: 'completed' });
    // The continued conversation carries every earlier turn to the model.
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('Three.');
    expect(await ok(f.call('GET', `/sessions/${session.id}`))).toMatchObject({ cost: 0.009, inputTokens: 3000, outputTokens: 300 });

    // A token budget counts input and output tokens; a resume after raising it continues too.
    const tokens = await ok(f.call('POST', '/sessions', { agentId, initialMessage: 'Count.', budget: { maxTokens: 1000 } }), 201);
    f.fakes.vendor_a.reply({ text: 'Counted.', usage: USAGE });
    await f.waitForRun(tokens.run.id);
    const spent = await f.waitForRun((await ok(f.call('POST', `/sessions/${tokens.id}/runs`, { message: 'Again.' }), 202)).id);
    expect(spent.failure).toMatchObject({
      errorCode: 'budget_exceeded',
      errorExplanation: "The session's budget of 1,000 tokens is spent (1,100 used); raise it to continue.",
    });
    await ok(f.call('PATCH', `/sessions/${tokens.id}`, { budget: { maxTokens: 5000 } }));
    f.fakes.vendor_a.reply({ text: 'Resumed.', usage: USAGE });
    const resumed = await ok(f.call('POST', `/runs/${spent.id}/resume`, { message: 'Resume.' }), 202);
    expect(await f.waitForRun(resumed.id)).toMatchObject({ state: 'completed' });
  }, 90_000);

  it('refuses bad budgets with a 400, and null removes one', async () => {
    const agentId = await pricedAgent('vendor_a');
    for (const budget of [{}, { maxCost: 0 }, { maxCost: -1 }, { maxTokens: 1.5 }, { maxCost: 'ten' }, { maxMoney: 1 }]) {
      const refused = await f.call('POST', '/sessions', { agentId, budget });
      expect(refused.status, JSON.stringify(budget)).toBe(400);
      expect(refused.body.error.code).toBe('bad_request');
    }
    const idle = await ok(f.call('POST', '/sessions', { agentId, budget: { maxCost: 1, maxTokens: 10 } }), 201);
    expect((await ok(f.call('PATCH', `/sessions/${idle.id}`, { budget: null }))).budget).toBeNull();
    for (const budget of [{}, { maxMonthlyCost: 0 }, { maxCost: 1 }]) expect((await f.call('PATCH', '', { budget })).status, JSON.stringify(budget)).toBe(400);
    expect((await f.call('PATCH', '', {})).status).toBe(400);
  }, 60_000);

  it('a project budget under 20 concurrent runs: the overshoot is at most the calls in flight when it was reached', async () => {
    const ROUNDS = 5;
    const agentId = await pricedAgent('vendor_a', { input: 1, output: 10 }, { tools: [addNumbersTool], limits: { maxTurns: 8 } }); // 0.002 a call
    // Each run: five tool rounds, then a final answer (six calls, 120 for the twenty runs).
    f.fakes.vendor_a.defaultReply = (request) =>
      JSON.stringify(request.body).split('function_call_output').length - 1 >= ROUNDS
        ? { text: 'Added.', usage: USAGE, delayMs: 100 }
        : { toolCalls: [{ name: 'add_numbers', arguments: { a: 1, b: 1 } }], usage: USAGE, delayMs: 100 };
    // The month's spend so far (earlier tests), plus 40 calls of the 120 the runs would make.
    const before = (await ok(f.call('GET', '/usage'))).totals.cost * 1e9;
    const budgetCalls = 40;
    const budget = (before + budgetCalls * 2_000_000) / 1e9;
    await ok(f.call('PATCH', '', { budget: { maxMonthlyCost: budget } }));
    try {
      const created = await Promise.all(Array.from({ length: 20 }, (_, i) => ok(f.call('POST', '/sessions', { agentId, initialMessage: `Add ${i}.` }), 201)));
      const runIds = created.map((session) => session.run.id as string);
      // Polled in the database: twenty runs polled over the API would pass its request rate limit.
      await expect
        .poll(
          async () =>
            (await f.t.database.db.select({ settledAt: runsTable.settledAt }).from(runsTable).where(inArray(runsTable.id, runIds))).every(
              (run) => run.settledAt,
            ),
          { timeout: 90_000, interval: 200 },
        )
        .toBe(true);
      const runs = await Promise.all(runIds.map((runId) => ok(f.call('GET', `/runs/${runId}`))));
      const failed = runs.filter((run) => run.state === 'failed');
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.every((run) => run.failure.errorCode === 'budget_exceeded')).toBe(true);
      expect(failed[0].failure.errorExplanation).toMatch(/^The project's monthly budget of [0-9.]+ USD is spent/);
      expect(runs.filter((run) => run.state === 'completed').length + failed.length).toBe(20);

      const calls = await f.t.database.db.select().from(modelInvocations).where(inArray(modelInvocations.runId, runIds));
      // Every call that started completed, and no refused call reached the vendor.
      expect(calls.every((call) => call.status === 'succeeded')).toBe(true);
      expect(f.fakes.vendor_a.requests.filter((request) => JSON.stringify(request.body).includes('Add ')).length).toBe(calls.length);
      // The bound: a call passes the check only while the committed spend is below the budget, and
      // each run has at most one call in flight, so past the call that reached the budget at most
      // the other 19 runs' calls were made. Without the check all 120 would be.
      expect(calls.length).toBeGreaterThanOrEqual(budgetCalls);
      expect(calls.length).toBeLessThanOrEqual(budgetCalls + 19);
      const total = calls.reduce((sum, call) => sum + call.costNanos, 0);
      expect(before + total).toBeGreaterThanOrEqual(budget * 1e9);
      expect(before + total).toBeLessThanOrEqual(budget * 1e9 + 19 * 2_000_000);

      // Raising the budget lets the conversation go on.
      await ok(f.call('PATCH', '', { budget: { maxMonthlyCost: 1 } }));
      f.fakes.vendor_a.defaultReply = () => ({ text: 'Going on.', usage: USAGE });
      const resumed = await ok(f.call('POST', `/runs/${failed[0].id}/resume`, { message: 'Go on.' }), 202);
      expect(await f.waitForRun(resumed.id)).toMatchObject({ state: 'completed' });
    } finally {
      await ok(f.call('PATCH', '', { budget: null }));
      f.fakes.vendor_a.reset();
    }
  }, 150_000);
});

describe('usage ledger', () => {
  it('groups add up to the totals and to the recorded calls; bad groupBy or an inverted range is a 400', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const ledger = async (query: string) => ok(f.call('GET', `/usage?${query}`));
    const byDay = await ledger(`from=${today.slice(0, 8)}01&to=${today}&groupBy=day`);
    expect(byDay).toMatchObject({ from: `${today.slice(0, 8)}01`, to: today, groupBy: 'day', currency: 'USD' });
    expect(byDay.groups.map((group: { key: string }) => group.key).at(-1)).toBe(today);
    expect(byDay.groups).toHaveLength(Number(today.slice(8, 10)));

    // The totals equal the project's completed calls, summed from the attempts themselves.
    const calls = await f.t.database.db
      .select()
      .from(modelInvocations)
      .where(and(eq(modelInvocations.projectId, f.projectId), eq(modelInvocations.status, 'succeeded')));
    expect(calls.length).toBeGreaterThan(10);
    const sum = (field: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'costNanos') =>
      calls.reduce((total, call) => total + call[field], 0);
    expect(byDay.totals).toEqual({
      runs: new Set(calls.map((call) => call.runId)).size,
      invocations: calls.length,
      inputTokens: sum('inputTokens'),
      outputTokens: sum('outputTokens'),
      cacheReadTokens: sum('cacheReadTokens'),
      cacheWriteTokens: sum('cacheWriteTokens'),
      cost: Number((sum('costNanos') / 1e9).toFixed(9)),
    });

    for (const groupBy of ['day', 'agent', 'preset', 'apiKey']) {
      const grouped = await ledger(`groupBy=${groupBy}`);
      expect(grouped.totals).toEqual(byDay.totals);
      for (const field of ['runs', 'invocations', 'inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const) {
        expect(
          grouped.groups.reduce((total: number, group: Record<string, number>) => total + (group[field] ?? 0), 0),
          `${groupBy} ${field}`,
        ).toBe(grouped.totals[field]);
      }
      expect(grouped.groups.reduce((total: number, group: { cost: number }) => total + group.cost, 0)).toBeCloseTo(grouped.totals.cost, 9);
    }
    const presets = await ledger('groupBy=preset');
    expect(presets.groups.map((group: { key: string }) => group.key)).toEqual(
      expect.arrayContaining(['fast', 'priced-vendor-b', 'priced-vendor-c', 'priced-gateway', 'catalog-priced']),
    );
    // Every run here was created with the test's one API key.
    const [apiKey] = (await ok(f.call('GET', '/api-keys'))).data.filter((key: { name: string }) => key.name === 'test key');
    expect((await ledger('groupBy=apiKey')).groups).toEqual([expect.objectContaining({ key: apiKey.id, invocations: calls.length })]);

    // An empty range answers zeros; a range before any use too.
    expect((await ledger('from=2020-01-01&to=2020-01-31&groupBy=agent')).groups).toEqual([]);

    for (const query of ['groupBy=week', 'from=2026-02-30', `from=${today}&to=2020-01-01`, 'from=2020-01-01&to=2022-01-01', 'from=yesterday', 'limit=5']) {
      const refused = await f.call('GET', `/usage?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.code).toBe('bad_request');
    }
    // The ledger needs usage:read.
    const reader = (await f.t.createApiKey(['session:read'])).secret;
    expect((await f.call('GET', '/usage', undefined, { apiKey: reader })).status).toBe(403);
    const usageReader = (await f.t.createApiKey(['usage:read'])).secret;
    expect((await f.call('GET', '/usage', undefined, { apiKey: usageReader })).status).toBe(200);
  }, 60_000);
});
