import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, productEvents, toolCalls } from '../../db/schema/index.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';
import { expireOverdue } from '../../services/runtime/tool-calls/index.ts';
import { readToolProgress } from '../../services/runtime/tool-calls/index.ts';
import { recordToolCalls } from '../../services/runtime/tool-calls/index.ts';
import { errorOf } from '../fixtures/model-vendors/helpers.ts';
import type { FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { manualClock, type TestApp } from '../support/app.ts';
import { ORDER, startToolCallApp, tool } from '../support/tool-call-app.ts';

/** Caller tool, platform tool and approval-gated tools, as a published version pins them. */
const TOOLS = [
  tool('lookup_order', 'caller', 'never', 'Looks up an order.'),
  tool('compute_tax', 'platform', 'never', 'Computes tax.'),
  tool('refund_order', 'caller', 'always', 'Refunds an order.'),
  tool('close_account', 'platform', 'always', 'Closes an account.'),
];

let t: TestApp;
let fakes: FakeModelProviders;
let admin: string;
let p: (path: string) => string;
let sys: () => ServiceContext;
let newRun: () => Promise<{ runId: string; sessionId: string }>;
const clock = manualClock();

beforeAll(async () => {
  ({ t, fakes, admin, p, sys, newRun } = await startToolCallApp(TOOLS, clock));
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

let turn = 0;
const call = (name: string, args: unknown, id = `call_${(turn += 1)}`) => ({
  providerCallId: id,
  name,
  arguments: args,
  argumentsText: JSON.stringify(args ?? null),
});
const record = (runId: string, calls: ReturnType<typeof call>[], turnId = `turn-${(turn += 1)}`) => recordToolCalls(sys(), { runId, turnId, calls });
const rowOf = async (id: string) => (await t.database.db.select().from(toolCalls).where(eq(toolCalls.id, id)))[0]!;
const eventsOf = async (aggregateId: string) =>
  (await t.database.db.select().from(productEvents).where(eq(productEvents.aggregateId, aggregateId))).sort(
    (a, b) => a.aggregateSequence - b.aggregateSequence,
  );

const decide = (approvalId: string, body: unknown, options: { apiKey?: string; idempotencyKey?: string } = {}) =>
  t.request('POST', p(`/approvals/${approvalId}/decision`), {
    apiKey: options.apiKey ?? admin,
    body,
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
  });
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
    expect(await readToolProgress(t.database.db, { runId, turnId })).toMatchObject({
      waitingFor: 'approval',
      nextDeadlineAtMs: new Date(approval.expiresAt).getTime(),
    });

    const before = t.runStarter.notifications.length;
    const approved = await decide(approval.id, { status: 'approved', note: 'Customer verified by phone' });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({
      id: approval.id,
      status: 'approved',
      note: 'Customer verified by phone',
      expiresAt: approval.expiresAt,
      decidedAt: clock.now().toISOString(),
    });
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
    expect((await readToolProgress(t.database.db, { runId, turnId })).platformCalls).toEqual([
      { toolCallId, toolName: 'close_account', arguments: { orderId: ORDER } },
    ]);

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
