import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { messages, modelInvocations, productEvents } from '../../db/schema/index.ts';
import { RUN_SEARCH_ATTRIBUTES as runSearchAttributeKeys } from '../../domain/runs/workflow.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import type { FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import type { TestApp } from '../support/app.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Runs end to end on a real Temporal dev server with real activities: HTTP session → workflow
 * `run:<runId>` → model turns through each vendor's wire protocol (local fakes) → settled run,
 * transcript, usage and product events in Postgres.
 */
let app: Awaited<ReturnType<typeof startRunApp>>;
let t: TestApp;
let fakes: FakeModelServers;

const MODELS = {
  vendor_a: 'vendor_a/gpt-5.1',
  vendor_b: 'vendor_b/claude-opus-4-6',
  vendor_c: 'vendor_c/gemini-2.5-pro',
  gateway: 'gateway/anthropic/claude-sonnet-4.5',
} as const;
type ProviderType = keyof typeof MODELS;

beforeAll(async () => {
  app = await startRunApp();
  ({ t, fakes } = app);
  for (const providerType of Object.keys(MODELS) as ProviderType[]) {
    const provider = await call('POST', '/model-providers', {
      key: `p-${providerType.replace('_', '-')}`,
      displayName: providerType,
      providerType,
      apiKey: FAKE_KEYS[providerType],
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    const preset = await call('POST', '/model-presets', {
      key: `m-${providerType.replace('_', '-')}`,
      displayName: providerType,
      providerId: provider.body.id,
      model: MODELS[providerType],
      routing: {},
    });
    expect(preset.status, JSON.stringify(preset.body)).toBe(201);
  }
}, 120_000);

afterAll(() => app?.close());

const call = (method: string, path: string, body?: unknown) => app.call(method, path, body);

async function agentFor(providerType: ProviderType, limits: Record<string, number> = { maxTurns: 4 }) {
  const agent = await call('POST', '/agents', {
    name: `Agent ${providerType} ${Math.random()}`,
    initialConfig: { systemPrompt: 'You are terse.', modelPreset: `m-${providerType.replace('_', '-')}`, limits },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body;
}

async function waitForRun(
  runId: string,
  predicate: (run: any) => boolean = (run) => ['completed', 'failed', 'cancelled', 'timed_out'].includes(run.state),
  timeoutMs = 45_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await call('GET', `/runs/${runId}`);
    if (predicate(run.body)) return run.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} stuck in ${run.body.state}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const eventKinds = async (runId: string) =>
  (
    await t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateType, 'run'), eq(productEvents.aggregateId, runId)))
  )
    .sort((a, b) => Number(a.projectPosition - b.projectPosition))
    .map((row) => row.kind);

describe('run engine', () => {
  for (const providerType of Object.keys(MODELS) as ProviderType[]) {
    it(`completes a run through ${providerType}`, async () => {
      fakes[providerType].reply({ text: `Hello from ${providerType}.`, usage: { inputTokens: 40, outputTokens: 9, cacheReadTokens: 8 } });
      const agent = await agentFor(providerType);
      const session = await call('POST', '/sessions', { agentId: agent.id, initialMessage: 'Say hello.' });
      expect(session.status).toBe(201);
      const run = await waitForRun(session.body.latestRunId);
      expect(run.state).toBe('completed');
      expect(run.admittedAt).not.toBeNull();
      expect(run.settledAt).not.toBeNull();
      const rows = await t.database.db.select().from(messages).where(eq(messages.runId, run.id));
      expect(rows.map((row) => row.role)).toEqual(['user', 'assistant']);
      expect(rows[1]!.content.text).toBe(`Hello from ${providerType}.`);
      const detail = await call('GET', `/sessions/${session.body.id}`);
      expect(detail.body.status).toBe('completed');
      // Input counts every input token, cached ones included; Anthropic reports cache reads apart.
      expect(detail.body.inputTokens).toBe(providerType === 'vendor_b' ? 48 : 40);
      expect(detail.body.outputTokens).toBe(9);
      expect(detail.body.cacheReadTokens).toBe(8);
      expect(await eventKinds(run.id)).toEqual(['run.queued', 'run.running', 'model.call_started', 'run.completed']);
      // An operator finds the run in the Temporal Web UI by its search attributes. The run's row
      // settles inside its model call's step; the workflow marks the state in its last task.
      const handle = app.runtime.client.client.workflow.getHandle(`run:${run.id}`);
      await handle.result();
      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(runSearchAttributeKeys.runState)).toBe('completed');
      expect(description.typedSearchAttributes.get(runSearchAttributeKeys.projectId)).toBe(run.projectId);
      expect(description.typedSearchAttributes.get(runSearchAttributeKeys.sessionId)).toBe(session.body.id);
      expect(description.typedSearchAttributes.get(runSearchAttributeKeys.agentId)).toBe(agent.id);
      // The vendor got the system prompt and the user's message in its own format.
      expect(JSON.stringify(fakes[providerType].requests.at(-1)!.body)).toContain('Say hello.');
    });
  }

  it('retries transient provider failures (retry_scheduled), then completes', async () => {
    fakes.vendor_a.fail({ status: 500 }).fail({ status: 503 }).reply({ text: 'Third time lucky.' });
    const agent = await agentFor('vendor_a');
    const session = await call('POST', '/sessions', { agentId: agent.id, initialMessage: 'Try hard.' });
    const run = await waitForRun(session.body.latestRunId);
    expect(run.state).toBe('completed');
    expect(await eventKinds(run.id)).toEqual([
      'run.queued',
      'run.running',
      'model.call_started',
      'run.retry_scheduled',
      'model.retry_scheduled',
      'run.running',
      'run.retry_scheduled',
      'model.retry_scheduled',
      'run.running',
      'run.completed',
    ]);
    const attempts = await t.database.db.select().from(modelInvocations).where(eq(modelInvocations.runId, run.id));
    expect(attempts.map((a) => [a.attempt, a.status, a.errorCode]).sort()).toEqual([
      [1, 'failed', 'provider_server_error'],
      [2, 'failed', 'provider_server_error'],
      [3, 'succeeded', null],
    ]);
  }, 60_000);

  it('fails visibly on a non-retryable provider error', async () => {
    fakes.vendor_b.fail({ status: 400, message: 'tools.0.input_schema: invalid' });
    const agent = await agentFor('vendor_b');
    const session = await call('POST', '/sessions', { agentId: agent.id, initialMessage: 'Hi.' });
    const run = await waitForRun(session.body.latestRunId);
    expect(run.state).toBe('failed');
    expect(run.failure.errorCode).toBe('provider_rejected_request');
    expect(await eventKinds(run.id)).toEqual(['run.queued', 'run.running', 'model.call_started', 'model.invocation_failed', 'run.failed']);
    const failed = (await t.database.db.select().from(productEvents).where(eq(productEvents.kind, 'model.invocation_failed'))).find(
      (row) => row.aggregateId === run.id,
    )!;
    expect(failed.publicPayload).toMatchObject({ errorCode: 'provider_rejected_request' });
    expect(JSON.stringify(failed.publicPayload)).not.toContain(FAKE_KEYS.vendor_b);
  });

  it('cancels a run while its model call is in flight', async () => {
    // The reply would come long after the wait below gives up: only a cancellation that reaches the
    // call in flight settles the run within it.
    fakes.gateway.reply({ text: 'too late', delayMs: 600_000 });
    const agent = await agentFor('gateway');
    const requestsBefore = fakes.gateway.requests.length;
    const session = await call('POST', '/sessions', { agentId: agent.id, initialMessage: 'Take your time.' });
    const runId = session.body.latestRunId;
    await waitForRun(runId, (run) => run.state === 'running');
    await vi.waitFor(() => expect(fakes.gateway.requests.length).toBeGreaterThan(requestsBefore), { timeout: 30_000, interval: 50 });
    const cancel = await call('POST', `/runs/${runId}/cancel`);
    expect(cancel.status).toBe(202);
    const run = await waitForRun(runId);
    expect(run.state).toBe('cancelled');
    expect(run.cancellationRequestedAt).not.toBeNull();
    const again = await call('POST', `/runs/${runId}/cancel`);
    expect(again.body.state).toBe('cancelled');
  }, 60_000);

  it('times out a run that exceeds its execution time', async () => {
    fakes.vendor_c.reply({ text: 'slow', delayMs: 20_000 });
    const agent = await agentFor('vendor_c', { maxTurns: 4, timeoutMs: 1500 });
    const session = await call('POST', '/sessions', { agentId: agent.id, initialMessage: 'Slowly.' });
    const run = await waitForRun(session.body.latestRunId);
    expect(run.state).toBe('timed_out');
    expect(run.failure.errorCode).toBe('run_timed_out');
  }, 60_000);

  it('runs follow-ups on the same thread and refuses one while the latest run is unsettled', async () => {
    fakes.vendor_a.reply({ text: 'First answer.' }).reply({ text: 'Second answer.', delayMs: 1500 });
    const agent = await agentFor('vendor_a');
    const session = await call('POST', '/sessions', { agentId: agent.id, initialMessage: 'One?' });
    await waitForRun(session.body.latestRunId);
    const followUp = await call('POST', `/sessions/${session.body.id}/runs`, { message: 'Two?' });
    expect(followUp.status).toBe(202);
    const conflict = await call('POST', `/sessions/${session.body.id}/runs`, { message: 'Three?' });
    expect(conflict.status).toBe(409);
    const second = await waitForRun(followUp.body.id);
    expect(second.state).toBe('completed');
    // The second model call saw the whole thread.
    const sent = JSON.stringify(fakes.vendor_a.requests.at(-1)!.body);
    expect(sent).toContain('One?');
    expect(sent).toContain('First answer.');
    expect(sent).toContain('Two?');
  }, 60_000);

  it('a run pinned to an archived preset whose provider was removed fails with model_provider_removed', async () => {
    const provider = await call('POST', '/model-providers', {
      key: 'short-lived',
      displayName: 'Short-lived',
      providerType: 'vendor_a',
      apiKey: FAKE_KEYS.vendor_a,
    });
    const preset = await call('POST', '/model-presets', {
      key: 'short-lived',
      displayName: 'Short-lived',
      providerId: provider.body.id,
      model: MODELS.vendor_a,
      routing: {},
    });
    const agent = await call('POST', '/agents', {
      name: 'Pinned',
      initialConfig: { systemPrompt: 'Hi.', modelPreset: 'short-lived', limits: { maxTurns: 2 } },
    });
    expect(agent.status).toBe(201);
    expect((await call('DELETE', `/model-presets/${preset.body.id}`)).body).toMatchObject({ archived: true });
    expect((await call('DELETE', `/model-providers/${provider.body.id}`)).body).toMatchObject({ removed: true });
    const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Still working?' });
    const run = await waitForRun(session.body.latestRunId);
    expect(run.state).toBe('failed');
    expect(run.failure.errorCode).toBe('model_provider_removed');
  });
});
