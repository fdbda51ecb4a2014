import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/app.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Approval gates end to end. The service clock is a manual clock so expiry (24 hours) can be
 * reached by moving it; the workflow is woken by the same signal a decision sends.
 */
const clock = manualClock(new Date());
let f: Awaited<ReturnType<typeof startRunApp>>;
let refunds = 0;

const refund = {
  name: 'issue_refund',
  description: 'Refunds an order',
  owner: 'platform',
  approval: 'always',
  inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  outputSchema: { type: 'object', properties: { refunded: { type: 'boolean' } }, required: ['refunded'] },
};

beforeAll(async () => {
  f = await startRunApp({
    clock,
    platformTools: {
      issue_refund: async () => {
        refunds += 1;
        return { status: 'success', value: { refunded: true } };
      },
    },
  });
  clock.advance(1000);
}, 120_000);
afterAll(() => f?.close());

async function runWaitingForApproval(orderId: string, timeoutMs = 20_000) {
  f.fakes.vendor_a.reply({ toolCalls: [{ name: 'issue_refund', arguments: { orderId } }] }).reply({ text: `Handled ${orderId}.` });
  const agent = await f.call('POST', '/agents', {
    name: `Refunds ${Math.random()}`,
    initialConfig: { systemPrompt: 'Refund carefully.', modelPreset: 'fast', tools: [refund], limits: { maxTurns: 8, timeoutMs } },
  });
  const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: `Refund ${orderId}.` });
  const runId = session.body.latestRunId as string;
  await f.waitForRun(runId, (run) => run.state === 'waiting_for_approval');
  const approvals = await f.call('GET', `/approvals?runId=${runId}`);
  expect(approvals.status).toBe(200);
  const approval = approvals.body.data[0];
  expect(approval.status).toBe('pending');
  expect(new Date(approval.expiresAt).getTime() - clock.now().getTime()).toBeGreaterThan(23 * 3600_000);
  return { runId, approval };
}

describe('approvals', () => {
  it('approved: the platform tool runs and the run completes', async () => {
    const before = refunds;
    const { runId, approval } = await runWaitingForApproval('R1');
    const decision = await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'approved', note: 'ok' });
    expect(decision.status).toBe(200);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    expect(refunds - before).toBe(1);
  }, 60_000);

  it('denied: the tool does not run; the model is told and the run completes', async () => {
    const before = refunds;
    const { runId, approval } = await runWaitingForApproval('R2');
    expect((await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'denied' })).status).toBe(200);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    expect(refunds - before).toBe(0);
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('approval_denied');
    const again = await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'approved' });
    expect(again.status).toBe(409);
  }, 60_000);

  it('expired: after 24 hours the tool does not run and the model is told', async () => {
    const before = refunds;
    const { runId, approval } = await runWaitingForApproval('R3');
    clock.advance(24 * 3600_000 + 1000);
    // The expiry deadline is a workflow timer in production; here the clock moved, so wake it.
    await f.starter.notify(runId, 'approvalDecided');
    expect((await f.waitForRun(runId)).state).toBe('completed');
    expect(refunds - before).toBe(0);
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('approval_expired');
    const late = await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'approved' });
    expect(late.status).toBe(409);
  }, 60_000);

  it('waiting for approval pauses the execution deadline', async () => {
    // A 12 s execution limit (the run's own steps fit in it on a slow host), and a longer approval
    // wait: only a paused deadline lets it complete.
    const { runId, approval } = await runWaitingForApproval('R4', 12_000);
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    expect((await f.call('GET', `/runs/${runId}`)).body.state).toBe('waiting_for_approval');
    await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'approved' });
    expect((await f.waitForRun(runId)).state).toBe('completed');
  }, 60_000);
});
