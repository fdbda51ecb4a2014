/**
 * Diagnostic, not part of `npm run bench`: where a one-turn run's time goes, through the API on
 * PostgreSQL with the instant model. Prints `POST /sessions` and create-to-settled p50 over 40
 * runs (after 5 warm-up), then the median gap between consecutive events of the run's Temporal
 * history (event type numbers: 1 started, 5/6/7 workflow task scheduled/started/completed, 10/11/12
 * activity scheduled/started/completed, 17 timer started, 25 marker (local activity), 40 search
 * attributes upserted, 2 completed).
 *
 *   node_modules/.bin/node bench/run-path-breakdown.ts
 */
import { median } from './support.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { runWorkflowId } from '../domain/runs/workflow.ts';
await withBenchRuntimeApp('breakdown', {}, async ({ api, projectPath, runtime }) => {
  const agent = await api.call('POST', `${projectPath}/agents`, {
    name: 'One turn',
    initialConfig: { systemPrompt: 'You are a helpful assistant.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
  });
  const post: number[] = [];
  const total: number[] = [];
  const gaps: Record<string, number[]> = {};
  for (let i = 0; i < 45; i++) {
    const t0 = performance.now();
    const session = await api.call('POST', `${projectPath}/sessions`, { agentId: agent.id, initialMessage: 'Hello' });
    const t1 = performance.now();
    const handle = runtime.client.client.workflow.getHandle(runWorkflowId(session.latestRunId));
    await handle.result();
    const t2 = performance.now();
    if (i < 5) continue;
    post.push(t1 - t0);
    total.push(t2 - t0);
    const history = await handle.fetchHistory();
    const ev = history.events!;
    const ts = (e: any) => Number(e.eventTime.seconds) * 1000 + e.eventTime.nanos / 1e6;
    for (let k = 1; k < ev.length; k++) {
      const key = `${k}:${String(ev[k - 1]!.eventType).replace('EVENT_TYPE_', '')}→${String(ev[k]!.eventType).replace('EVENT_TYPE_', '')}`;
      (gaps[key] ??= []).push(ts(ev[k]) - ts(ev[k - 1]));
    }
  }
  console.log(`POST /sessions p50 ${median(post).toFixed(1)} ms; create-to-settled p50 ${median(total).toFixed(1)} ms`);
  for (const [k, v] of Object.entries(gaps)) console.log(k.padEnd(80), median(v).toFixed(1));
});
