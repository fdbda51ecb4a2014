import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkflowId } from '../../domain/runs/workflow.ts';
import { workflowsPath } from '../../temporal/worker.ts';
import { STEP_RESULTS_PATCH } from '../../workflows/run/patches.ts';
import { lookupOrderTool } from '../support/platform-tools.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * The run workflow's branches on step results that older histories lack are `patched()`
 * (workflows/run/patches.ts): a run started now records the marker once, so a later release can
 * `deprecatePatch()` it and drop the old paths; the golden histories, recorded before the marker,
 * replay unchanged (workflow-replay.test.ts), and so does a history recorded now.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;

beforeAll(async () => {
  f = await startRunApp();
}, 120_000);
afterAll(() => f?.close());

describe('workflow patches', () => {
  it('a caller-tool run records the marker once, at its first branch, and its history replays against the current code', async () => {
    const agent = await f.call('POST', '/agents', {
      name: 'Patched',
      initialConfig: { systemPrompt: 'Use tools.', modelPreset: 'fast', tools: [lookupOrderTool], limits: { maxTurns: 4 } },
    });
    expect(agent.status).toBe(201);
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] });
    f.fakes.vendor_a.reply({ text: 'Shipped.' });
    const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Where is A1?' });
    expect(session.status).toBe(201);
    const runId = session.body.latestRunId as string;
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_tool');
    const call = (await f.call('GET', `/tool-calls?runId=${runId}`)).body.data[0];
    const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect(
      (
        await f.call('POST', `/tool-calls/${call.id}/result`, {
          fence: claim.body.fence,
          safeResult: { version: 1, status: 'success', value: { status: 'shipped' } },
        })
      ).status,
    ).toBe(202);
    expect((await f.waitForRun(runId)).state).toBe('completed');

    const handle = f.runtime.client.client.workflow.getHandle(runWorkflowId(runId));
    await handle.result();
    const history = await handle.fetchHistory();
    const markers = (history.events ?? []).flatMap((event) => {
      const details = event.markerRecordedEventAttributes;
      if (details?.markerName !== 'core_patch') return [];
      return [Buffer.from(details.details!['patch-data']!.payloads![0]!.data!).toString('utf8')];
    });
    const patchIds = markers.map((data) => (JSON.parse(data) as { id: string }).id);
    expect(patchIds).toEqual([STEP_RESULTS_PATCH]);

    const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
    await Worker.runReplayHistory({ workflowBundle, replayName: 'patched' }, history, 'patched');
  }, 120_000);
});
