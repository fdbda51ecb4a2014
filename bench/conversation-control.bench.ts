/**
 * Conversation control (issue 31), on the machine's PostgreSQL with the real runtime and the
 * instant model (`runtime-app.ts`); the model server and every client live in this process, so
 * their timestamps share one clock.
 *
 * 1. Queue hand-off: the gap from the end of run N's model answer (the instant model's request
 *    log: the answer handed to the socket in full) to the start of the next model request, p50.
 *    Run N's model call is held 100 ms (`sleep 100`). Measured: the next turn was posted with
 *    `ifBusy: "enqueue"` while that call was held (the pending turn exists before the run settles
 *    and becomes the next run in the settlement's transaction). Baseline, rounds alternating: the
 *    same session shape, the follow-up posted the moment a `GET /sessions/{id}/events` client
 *    (over HTTP, open on both sides) receives run N's `run.completed`. Both gaps include run N's
 *    own recording and settlement, which are the same on both sides. Target ≤ 1.2×. Also
 *    printed: the gap from `run.completed`'s `occurredAt` (ms precision, taken inside the
 *    settlement's transaction) to the next model request, on both sides.
 * 2. Fork: p50 of `POST /sessions/{id}/fork` (from the last run, no workspace, no message) of a
 *    session of 200 messages (100 one-turn runs through the API), against a bare copy of the
 *    same 200 rows into a fresh thread: `copyTranscript`'s own `insert … select` statement sent
 *    through postgres.js (unprepared, as the service sends its statements), the thread row made
 *    beforehand, rounds alternating. Target ≤ 3×. Also printed: an idle `POST /sessions` in the same
 *    rounds (a fork's request, session row, audit and event without the transcript).
 *
 *   node_modules/.bin/node bench/conversation-control.bench.ts
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import postgres from 'postgres';
import { runWorkflowId } from '../domain/runs/workflow.ts';
import type { InstantModelServerOptions } from './instant-model-server.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { openEventStream, percentile, printRecords, until, type BenchRecord } from './support.ts';

type Options = { handOffRounds?: number; handOffWarmup?: number; forkRounds?: number; forkWarmup?: number; transcriptRuns?: number };

/** How long run N's model call is held, so the pending turn is accepted while the run is busy. */
const HOLD_MS = 100;
const SETTLED = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out']);

/** When each model request (by its last user message) arrived and was answered (performance.now()). */
type Exchange = { received?: number; answered?: number };

const p50 = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const p95 = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    95,
  );

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = { handOffRounds: 30, handOffWarmup: 5, forkRounds: 40, forkWarmup: 5, transcriptRuns: 100, ...options };
  const exchanges = new Map<string, Exchange>();
  const model: InstantModelServerOptions = {
    onExchange: (phase, userText, at) => {
      if (userText === null) return;
      const exchange = exchanges.get(userText) ?? {};
      exchange[phase] = at;
      exchanges.set(userText, exchange);
    },
  };
  return withBenchRuntimeApp('conversation-control', { model }, async ({ api, projectPath: p, runtime, app, databaseUrl }) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const bare = postgres(databaseUrl, { max: 1, prepare: false, onnotice: () => {} });
    try {
      const port = (server.address() as AddressInfo).port;
      const agent = await api.call('POST', `${p}/agents`, {
        name: 'Conversation',
        initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
      });
      const settle = async (runId: string) => {
        const state = await runtime.client.client.workflow.getHandle(runWorkflowId(runId)).result();
        if (state !== 'completed') throw new Error(`run ${runId} settled ${String(state)}`);
      };

      // Part 1: queue hand-off against a follow-up posted on seeing the settlement.
      type Sample = { gap: number; fromOccurredAt: number; observed?: number };
      const queued: Sample[] = [];
      const followUp: Sample[] = [];
      let discarded = 0;
      const side = async (round: number, how: 'enqueue' | 'follow-up', keep: boolean) => {
        const held = `r${round} ${how} first sleep ${HOLD_MS}`;
        const next = `r${round} ${how} next`;
        const session = await api.call('POST', `${p}/sessions`, { agentId: agent.id }); // idle
        const settled: Array<{ runId: string; kind: string; occurredAt: number; at: number }> = [];
        let firstRunId: string | null = null;
        let posted = false;
        const follow: { error?: Error } = {};
        const stream = await openEventStream(
          port,
          `${p}/sessions/${session.id}/events?from=now`,
          { authorization: api.authorization },
          ({ event: kind, data }, at) => {
            if (!SETTLED.has(kind)) return;
            settled.push({ runId: data.aggregateId, kind, occurredAt: Date.parse(data.occurredAt) - performance.timeOrigin, at });
            // The baseline's client: the follow-up goes out the moment run N's settlement arrives.
            if (how === 'follow-up' && data.aggregateId === firstRunId && !posted) {
              posted = true;
              api
                .call('POST', `${p}/sessions/${session.id}/runs`, { message: next })
                .catch((error: unknown) => (follow.error = error instanceof Error ? error : new Error(String(error))));
            }
          },
        );
        try {
          const first = await api.call('POST', `${p}/sessions/${session.id}/runs`, { message: held });
          firstRunId = first.id;
          let valid = true;
          if (how === 'enqueue') {
            await until(`the model request of ${held}`, () => exchanges.get(held)?.received !== undefined);
            const answer = await api.call('POST', `${p}/sessions/${session.id}/runs`, { message: next, ifBusy: 'enqueue' });
            // The pending turn must have been accepted before run N's model answered.
            valid = answer.queued === true && exchanges.get(held)?.answered === undefined;
          }
          await until(`two settled runs of ${how} round ${round}`, () => settled.length === 2 || follow.error !== undefined);
          if (follow.error) throw follow.error;
          const odd = settled.find((s) => s.kind !== 'run.completed');
          if (odd) throw new Error(`run ${odd.runId} settled as ${odd.kind}`);
          const heldCall = exchanges.get(held)!;
          const nextCall = exchanges.get(next)!;
          const settledFirst = settled.find((s) => s.runId === first.id)!;
          if (!valid) discarded += 1;
          else if (keep) {
            const sample: Sample = { gap: nextCall.received! - heldCall.answered!, fromOccurredAt: nextCall.received! - settledFirst.occurredAt };
            if (how === 'follow-up') sample.observed = settledFirst.at - heldCall.answered!;
            (how === 'enqueue' ? queued : followUp).push(sample);
          }
        } finally {
          stream.close();
        }
      };
      for (let round = 0; round < settings.handOffWarmup + settings.handOffRounds; round++) {
        const keep = round >= settings.handOffWarmup;
        // Alternating, so drift on this shared machine hits both sides alike.
        if (round % 2 === 0) {
          await side(round, 'enqueue', keep);
          await side(round, 'follow-up', keep);
        } else {
          await side(round, 'follow-up', keep);
          await side(round, 'enqueue', keep);
        }
      }
      const gaps = (samples: Sample[]) => samples.map((s) => s.gap);
      const fromOccurred = (samples: Sample[]) => samples.map((s) => s.fromOccurredAt);
      console.log(
        `  end of run N's model answer → next model request (${queued.length} / ${followUp.length} rounds${discarded ? `, ${discarded} discarded: the turn was not pending before the answer` : ''}):` +
          ` pending turn p50 ${p50(gaps(queued)).toFixed(1)} / p95 ${p95(gaps(queued)).toFixed(1)} ms;` +
          ` follow-up posted on seeing run.completed p50 ${p50(gaps(followUp)).toFixed(1)} / p95 ${p95(gaps(followUp)).toFixed(1)} ms`,
      );
      console.log(
        `  run.completed occurredAt → next model request: pending turn p50 ${p50(fromOccurred(queued)).toFixed(1)} ms, follow-up p50 ${p50(fromOccurred(followUp)).toFixed(1)} ms;` +
          ` the follow-up client saw run.completed ${p50(followUp.map((s) => s.observed!)).toFixed(1)} ms (p50) after run N's model answer`,
      );

      // Part 2: fork of a 200-message session against a bare copy of its rows.
      const source = await api.call('POST', `${p}/sessions`, { agentId: agent.id, initialMessage: 'turn 0' });
      await settle(source.latestRunId);
      let lastRunId = source.latestRunId as string;
      for (let i = 1; i < settings.transcriptRuns; i++) {
        const turn = await api.call('POST', `${p}/sessions/${source.id}/runs`, { message: `turn ${i}` });
        await settle(turn.id);
        lastRunId = turn.id;
      }
      const count = async (threadId: string) =>
        (await bare<Array<{ n: number }>>`select count(*)::int as n from messages where thread_id = ${threadId}::uuid`)[0]!.n;
      const messages = await count(source.threadId);
      if (messages !== settings.transcriptRuns * 2) throw new Error(`the source session holds ${messages} messages, expected ${settings.transcriptRuns * 2}`);
      const fork = async () => {
        const began = performance.now();
        const forked = await api.call('POST', `${p}/sessions/${source.id}/fork`, { fromRunId: lastRunId });
        const ms = performance.now() - began;
        if (forked.workspace !== 'empty' || forked.run !== null)
          throw new Error(`unexpected fork: workspace ${forked.workspace}, run ${JSON.stringify(forked.run)}`);
        return { ms, threadId: forked.threadId as string };
      };
      const copy = async () => {
        const [thread] = await bare<
          Array<{ id: string }>
        >`insert into threads (organization_id, project_id) values (${api.organizationId}::uuid, ${api.projectId}::uuid) returning id`;
        const began = performance.now();
        const [row] = await bare<Array<{ copied: number }>>`
          with last as (
            select max(sequence) as sequence from messages where thread_id = ${source.threadId}::uuid and run_id = ${lastRunId}::uuid
          ),
          copied as (
            insert into messages (organization_id, project_id, thread_id, run_id, sequence, role, content, step_key, created_at)
            select m.organization_id, m.project_id, ${thread!.id}::uuid, m.run_id, m.sequence, m.role, m.content, m.step_key, m.created_at
            from messages m, last
            where m.thread_id = ${source.threadId}::uuid and m.sequence <= last.sequence
            returning sequence
          )
          update threads set last_message_sequence = coalesce((select max(sequence) from copied), 0)
          where id = ${thread!.id}::uuid
          returning (select count(*) from copied)::int as copied`;
        const ms = performance.now() - began;
        if (row!.copied !== messages) throw new Error(`the bare copy copied ${row!.copied} messages, expected ${messages}`);
        return ms;
      };
      // Where a fork's time goes beside the copy: an idle `POST /sessions` (the same request, session
      // row, audit and event, without the transcript), printed only.
      const idleSession = async () => {
        const began = performance.now();
        await api.call('POST', `${p}/sessions`, { agentId: agent.id });
        return performance.now() - began;
      };
      const forks: number[] = [];
      const copies: number[] = [];
      const idles: number[] = [];
      for (let round = 0; round < settings.forkWarmup + settings.forkRounds; round++) {
        const keep = round >= settings.forkWarmup;
        const forked = await fork();
        if (round === 0 && (await count(forked.threadId)) !== messages)
          throw new Error(`the fork holds ${await count(forked.threadId)} messages, expected ${messages}`);
        const copied = await copy();
        const idle = await idleSession();
        if (keep) {
          forks.push(forked.ms);
          copies.push(copied);
          idles.push(idle);
        }
      }
      console.log(
        `  fork of a ${messages}-message session p50 ${p50(forks).toFixed(2)} / p95 ${p95(forks).toFixed(2)} ms; bare copy of its rows p50 ${p50(copies).toFixed(2)} / p95 ${p95(copies).toFixed(2)} ms;` +
          ` an idle POST /sessions p50 ${p50(idles).toFixed(2)} ms`,
      );

      return [
        {
          name: "queue hand-off p50: end of run N's model answer → the pending turn's model request (baseline: a follow-up posted on seeing run.completed on the session stream)",
          unit: 'ms',
          value: p50(gaps(queued)),
          baseline: p50(gaps(followUp)),
          ratio: p50(gaps(queued)) / p50(gaps(followUp)),
          target: 1.2,
          better: 'lower',
        },
        {
          name: `POST /fork p50 of a ${messages}-message session, idle, no workspace (baseline: a bare insert … select of the same rows)`,
          unit: 'ms',
          value: p50(forks),
          baseline: p50(copies),
          ratio: p50(forks) / p50(copies),
          target: 3,
          better: 'lower',
        },
      ];
    } finally {
      await bare.end({ timeout: 5 });
      (server as http.Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
}

if (import.meta.main) {
  printRecords(await run());
}
