import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, productEvents, toolCalls } from '../../db/schema/index.ts';
import type { ServiceContext } from '../../services/context.ts';
import { expireOverdue } from '../../services/tool-calls/expire-overdue.ts';
import { readToolProgress } from '../../services/tool-calls/progress.ts';
import { recordToolCalls } from '../../services/tool-calls/record.ts';
import { createProvider, errorOf } from '../fixtures/model-providers/helpers.ts';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-providers/server.ts';
import { createTestApp, manualClock, type TestApp } from '../support/app.ts';

/** Caller tool, platform tool and an approval-gated tool, as a published version pins them. */
const orderSchema = {
  type: 'object',
  properties: {
    orderId: { type: 'string', format: 'uuid' },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
  },
  required: ['orderId'],
  additionalProperties: false,
};
const totalSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
const TOOLS = [
  { name: 'lookup_order', description: 'Looks up an order.', owner: 'caller', approval: 'never', inputSchema: orderSchema, outputSchema: totalSchema },
  { name: 'compute_tax', description: 'Computes tax.', owner: 'platform', approval: 'never', inputSchema: orderSchema, outputSchema: totalSchema },
  { name: 'refund_order', description: 'Refunds an order.', owner: 'caller', approval: 'always', inputSchema: orderSchema, outputSchema: totalSchema },
  { name: 'close_account', description: 'Closes an account.', owner: 'platform', approval: 'always', inputSchema: orderSchema, outputSchema: totalSchema },
];
const ORDER = '2b0f7a9e-0d7c-4a53-9a55-4c1f3f6d2a10';

let t: TestApp;
let fakes: FakeModelProviders;
let projectId: string;
let admin: string;
let agentId: string;
const clock = manualClock();

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  t = await createTestApp({ env: fakes.env, clock });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  const provider = await createProvider(t, { apiKey: admin, projectId, key: 'openai', providerType: 'vendor_a' });
  const preset = await t.request('POST', p('/model-presets'), {
    apiKey: admin,
    body: { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {}, settings: { effort: 'low' } },
  });
  expect(preset.status).toBe(201);
  const config = { systemPrompt: 'You are a careful assistant for the support team.', modelPreset: 'fast', tools: TOOLS, limits: { maxTurns: 8 } };
  const created = await t.request('POST', p('/agents'), { apiKey: admin, body: { name: 'Tools', initialConfig: config } });
  expect(created.status, await created.clone().text()).toBe(201);
  agentId = (await created.json()).id;
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

function p(path: string) {
  return `/v1/projects/${projectId}${path}`;
}
const sys = (): ServiceContext => ({ db: t.database.db, inTransaction: false, afterCommit: [], actor: null, requestId: null, logger: t.deps.logger, clock });
async function newRun(): Promise<{ runId: string; sessionId: string }> {
  const response = await t.request('POST', p('/sessions'), { apiKey: admin, body: { agentId, initialMessage: 'Help with my order' } });
  expect(response.status, await response.clone().text()).toBe(201);
  const session = await response.json();
  return { runId: session.run.id, sessionId: session.id };
}
let turn = 0;
const call = (name: string, args: unknown, id = `call_${(turn += 1)}`) => ({ providerCallId: id, name, arguments: args, argumentsText: JSON.stringify(args ?? null) });
const record = (runId: string, calls: ReturnType<typeof call>[], turnId = `turn-${(turn += 1)}`) => recordToolCalls(sys(), { runId, turnId, calls });
const rowOf = async (id: string) => (await t.database.db.select().from(toolCalls).where(eq(toolCalls.id, id)))[0]!;
const eventsOf = async (aggregateId: string) =>
  (await t.database.db.select().from(productEvents).where(eq(productEvents.aggregateId, aggregateId))).sort((a, b) => a.aggregateSequence - b.aggregateSequence);

const decide = (approvalId: string, body: unknown, options: { apiKey?: string; idempotencyKey?: string } = {}) =>
  t.request('POST', p(`/approvals/${approvalId}/decision`), { apiKey: options.apiKey ?? admin, body, ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) });
async function gated(tool = 'refund_order') {
  const { runId, sessionId } = await newRun();
  const turnId = `turn-gated-${(turn += 1)}`;
  const [recorded] = (await record(runId, [call(tool, { orderId: ORDER })], turnId)).calls;
  const listed = await (await t.request('GET', p(`/approvals?runId=${runId}`), { apiKey: admin })).json();
  return { runId, sessionId, turnId, toolCallId: recorded!.toolCallId, approval: listed.data[0] };
}

describe('approval decisions', () => {
  it('approving a caller tool makes its call claimable; the same decision again is answered unchanged', async () => {
    const { runId, turnId, toolCallId, approval } = await gated();
    expect(approval).toMatchObject({ status: 'pending', toolCallId, toolName: 'refund_order', runId, note: null, decidedAt: null });
    expect(await readToolProgress(t.database.db, { runId, turnId })).toMatchObject({ waitingFor: 'approval', nextDeadlineAtMs: new Date(approval.expiresAt).getTime() });

    const before = t.runStarter.notifications.length;
    const approved = await decide(approval.id, { status: 'approved', note: 'Customer verified by phone' });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ id: approval.id, status: 'approved', note: 'Customer verified by phone', expiresAt: approval.expiresAt, decidedAt: clock.now().toISOString() });
    expect(t.runStarter.notifications.slice(before)).toEqual([{ runId, signal: 'approvalDecided' }]);
    expect((await rowOf(toolCallId)).status).toBe('pending');
    expect(await readToolProgress(t.database.db, { runId, turnId })).toMatchObject({ waitingFor: 'tool', nextDeadlineAtMs: null });

    const repeated = await decide(approval.id, { status: 'approved' });
    expect(repeated.status).toBe(200);
    expect((await repeated.json()).note).toBe('Customer verified by phone');
    const changed = await decide(approval.id, { status: 'denied' });
    expect(changed.status).toBe(409);
    expect(t.runStarter.notifications.length).toBe(before + 1);

    const kinds = (await eventsOf(approval.id)).map((e) => e.kind);
    expect(kinds).toEqual(['approval.requested', 'approval.decided']);
    expect((await eventsOf(toolCallId)).map((e) => e.kind)).toEqual(['tool_call.created', 'tool_call.pending']);
    const audit = await t.database.db.select().from(auditEntries).where(eq(auditEntries.targetId, approval.id));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.action).toBe('approval.decided');
    expect(JSON.stringify(audit[0]!.details)).not.toContain('Customer verified');
  });

  it('approving a platform tool hands it to the worker; denying fails the call with approval_denied', async () => {
    const { runId, turnId, toolCallId, approval } = await gated('close_account');
    expect((await decide(approval.id, { status: 'approved' })).status).toBe(200);
    expect((await rowOf(toolCallId)).status).toBe('running');
    expect((await readToolProgress(t.database.db, { runId, turnId })).platformCalls).toEqual([{ toolCallId, toolName: 'close_account', arguments: { orderId: ORDER } }]);

    const denied = await gated();
    const response = await decide(denied.approval.id, { status: 'denied' });
    expect(response.status).toBe(200);
    expect(await rowOf(denied.toolCallId)).toMatchObject({ status: 'denied', failure: { code: 'approval_denied' } });
    expect(await readToolProgress(t.database.db, { runId: denied.runId, turnId: denied.turnId })).toMatchObject({ allFinal: true, waitingFor: null });
  });

  it('refuses decisions after expiresAt; expireOverdue marks the approval expired and denies the call', async () => {
    const { runId, toolCallId, approval } = await gated();
    clock.advance(24 * 60 * 60 * 1000 + 10);
    const before = t.runStarter.notifications.length;
    const late = await decide(approval.id, { status: 'approved' });
    expect(late.status).toBe(409);
    expect((await errorOf(late)).details).toMatchObject({ status: 'expired' });
    expect(t.runStarter.notifications.length).toBe(before);
    expect((await (await t.request('GET', p('/pending-work'), { apiKey: admin })).json()).approvals.map((a: any) => a.id)).not.toContain(approval.id);

    await expireOverdue(sys(), { runId });
    const listed = (await (await t.request('GET', p(`/approvals?runId=${runId}`), { apiKey: admin })).json()).data[0];
    expect(listed).toMatchObject({ status: 'expired', expiresAt: approval.expiresAt });
    expect(await rowOf(toolCallId)).toMatchObject({ status: 'denied', failure: { code: 'approval_expired' } });
    expect((await decide(approval.id, { status: 'denied' })).status).toBe(409);
    expect((await eventsOf(approval.id)).map((e) => e.kind)).toEqual(['approval.requested', 'approval.expired']);
  });

  it('validates the body, replays an Idempotency-Key and needs approval:resolve', async () => {
    const { approval } = await gated();
    const long = await decide(approval.id, { status: 'approved', note: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    expect((await errorOf(long)).details.path).toBe('body.note');
    expect((await decide(approval.id, { status: 'maybe' })).status).toBe(400);
    const reader = (await t.createApiKey(['run:read'], 'approval reader')).secret;
    expect((await decide(approval.id, { status: 'approved' }, { apiKey: reader })).status).toBe(403);
    expect((await t.request('GET', p(`/approvals?runId=${approval.runId}`), { apiKey: reader })).status).toBe(200);
    expect((await t.request('GET', p('/approvals'), { apiKey: reader })).status).toBe(400);

    const first = await decide(approval.id, { status: 'denied', note: 'x'.repeat(2000) }, { idempotencyKey: 'decide-once' });
    expect(first.status).toBe(200);
    const replay = await decide(approval.id, { status: 'denied', note: 'x'.repeat(2000) }, { idempotencyKey: 'decide-once' });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect((await decide(approval.id, { status: 'approved' }, { idempotencyKey: 'decide-once' })).status).toBe(409);
    expect((await decide('00000000-0000-4000-8000-000000000000', { status: 'approved' })).status).toBe(404);
  });
});
