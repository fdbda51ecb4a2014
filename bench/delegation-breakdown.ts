/**
 * Diagnostic, not part of `npm run bench`: where a delegation round trip's time goes, through the
 * API on PostgreSQL with the instant model (the run of `bench/delegation.bench.ts`). Prints the
 * create-to-settled p50 over 20 delegations (after 5 warm-up), then the coordinator's history (P)
 * and its child's (C) merged on one time line: each event's median offset from the coordinator's
 * start, with activity and local activity names (event type numbers as in
 * `bench/run-path-breakdown.ts`; 29/31/32 child initiated/started/completed).
 *
 *   node_modules/.bin/node bench/delegation-breakdown.ts
 */
import { median } from './support.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { runWorkflowId } from '../domain/runs/workflow.ts';
await withBenchRuntimeApp('dh', {}, async ({ api, projectPath: p, runtime }) => {
  const plain = await api.call('POST', `${p}/agents`, {
    name: 'Plain',
    initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
  });
  const coordinator = await api.call('POST', `${p}/agents`, {
    name: 'Coordinator',
    initialConfig: {
      systemPrompt: 'Delegate.',
      modelPreset: 'm-a',
      limits: { maxTurns: 4 },
      delegates: [{ key: 'child', description: 'Answers.', agentVersionId: plain.latestVersionId, maxParallel: 1 }],
    },
  });
  const rows: Record<string, number[]> = {};
  const totals: number[] = [];
  for (let i = 0; i < 25; i++) {
    const t0 = performance.now();
    const session = await api.call('POST', `${p}/sessions`, {
      agentId: coordinator.id,
      initialMessage: 'call delegate_agent {"delegateKey":"child","message":"Answer."}',
    });
    const handle = runtime.client.client.workflow.getHandle(runWorkflowId(session.latestRunId));
    await handle.result();
    totals.push(performance.now() - t0);
    if (i < 5) continue;
    const ts = (e: any) => Number(e.eventTime.seconds) * 1000 + e.eventTime.nanos / 1e6;
    const events: Array<{ at: number; name: string }> = [];
    const h = await handle.fetchHistory();
    for (const e of h.events!) {
      const type = String(e.eventType).replace('EVENT_TYPE_', '');
      const m = (e as any).markerRecordedEventAttributes;
      const detail =
        (e as any).activityTaskScheduledEventAttributes?.activityType?.name ??
        (m
          ? (Buffer.from(m.details.data.payloads[0].data)
              .toString()
              .match(/"activity_type":"([^"]+)"|activityType":"([^"]+)"/)
              ?.slice(1)
              .find(Boolean) ?? Buffer.from(m.details.data.payloads[0].data).toString().slice(0, 80))
          : '');
      events.push({ at: ts(e), name: `P ${type} ${detail}` });
      const child = (e as any).childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child) {
        const ch = await runtime.client.client.workflow.getHandle(child.workflowId, child.runId).fetchHistory();
        for (const c of ch.events!) {
          const ctype = String(c.eventType).replace('EVENT_TYPE_', '');
          const cdetail = (c as any).activityTaskScheduledEventAttributes?.activityType?.name ?? (c as any).markerRecordedEventAttributes?.markerName ?? '';
          events.push({ at: ts(c), name: `  C ${ctype} ${cdetail}` });
        }
      }
    }
    events.sort((a, b) => a.at - b.at);
    const start = events[0]!.at;
    events.forEach((e, k) => (rows[`${String(k).padStart(2)} ${e.name}`] ??= []).push(e.at - start));
  }
  console.log('total p50', median(totals).toFixed(1));
  for (const [k, v] of Object.entries(rows)) console.log(k.padEnd(70), median(v).toFixed(1));
});
