/**
 * The Anthropic-compatible API (issue 32) against the native API, on the machine's PostgreSQL with
 * the real runtime and the instant model (`runtime-app.ts`), the app served over HTTP on
 * 127.0.0.1 so both sides pay the same sockets.
 *
 * One one-turn session per round, timed from the create request to the turn's end seen on a live
 * stream:
 * - compat: the official `@anthropic-ai/sdk` (1.14.0, `maxRetries: 0` so a failure is not hidden
 *   in a retry) with `baseURL` at `/compat/anthropic`: `beta.sessions.create` (idle, on
 *   `env_default`), `beta.sessions.events.stream`, `beta.sessions.events.send` of a `user.message`,
 *   then the stream read until `session.status_idle` with `stop_reason.type === 'end_turn'`.
 * - native (the baseline): `fetch` with the same API key: `POST /v1/projects/{p}/sessions` (idle),
 *   `GET /v1/projects/{p}/sessions/{id}/events?from=now`, `POST /sessions/{id}/runs`, then that
 *   stream read until the run's `run.completed`.
 * Each side has its own agent, made once (same system prompt, preset `m-a` and limits). Warm-up rounds
 * first, then rounds alternating which side goes first, so drift on this shared machine hits both
 * alike. Target: compat p50 ≤ 1.2× native p50. Also printed: p95 of both and the p50 of each
 * phase (create, stream open, send, send answered → turn end seen).
 *
 *   node_modules/.bin/node bench/anthropic-compat.bench.ts
 *   ANTHROPIC_COMPAT_ROUNDS=60 node_modules/.bin/node bench/anthropic-compat.bench.ts
 */
import { randomBytes } from 'node:crypto';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { serve } from '@hono/node-server';
import { COMPAT_LIMITS } from '../compat/anthropic/domain/agents.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { percentile, printRecords, sseFrames, type BenchRecord } from './support.ts';

type Options = { rounds?: number; warmup?: number };

const TARGET = 1.2;
const MESSAGE = 'hi';
const SYSTEM_PROMPT = 'Answer briefly.';
const SETTLED = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out']);

/** Milliseconds of one round's phases; `total` is create request → turn end seen on the stream. */
type Round = { create: number; open: number; send: number; turn: number; total: number };
const PHASES = ['create', 'open', 'send', 'turn'] as const;
const PHASE_NAMES: Record<(typeof PHASES)[number], string> = { create: 'create', open: 'stream open', send: 'send', turn: 'send answered → turn end seen' };

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p50 = (values: number[]) => percentile(sorted(values), 50);
const p95 = (values: number[]) => percentile(sorted(values), 95);

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const fromEnv = Number(process.env.ANTHROPIC_COMPAT_ROUNDS);
  const settings = { rounds: Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 30, warmup: 5, ...options };
  return withBenchRuntimeApp('anthropic-compat', {}, async ({ api, projectPath: p, app }) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new Anthropic({ baseURL: `${base}/compat/anthropic`, apiKey: api.authorization.slice('Bearer '.length), maxRetries: 0 });
      const compatAgent = await client.beta.agents.create({ name: 'Compat bench', model: 'm-a', system: SYSTEM_PROMPT });
      const nativeAgent = await api.call('POST', `${p}/agents`, {
        name: 'Native bench',
        initialConfig: { systemPrompt: SYSTEM_PROMPT, modelPreset: 'm-a', limits: { ...COMPAT_LIMITS } },
      });

      const post = async (path: string, body: unknown) => {
        const response = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: {
            authorization: api.authorization,
            accept: 'application/json',
            'content-type': 'application/json',
            'idempotency-key': randomBytes(8).toString('hex'),
          },
          body: JSON.stringify(body),
        });
        if (response.status >= 300) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
        return (await response.json()) as any;
      };

      const compat = async (): Promise<Round> => {
        const began = performance.now();
        const session = await client.beta.sessions.create({ agent: compatAgent.id, environment_id: 'env_default' });
        if (session.status !== 'idle') throw new Error(`compat session ${session.id} created ${session.status}, expected idle`);
        const created = performance.now();
        const stream = await client.beta.sessions.events.stream(session.id);
        const opened = performance.now();
        try {
          await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: MESSAGE }] }] });
          const sent = performance.now();
          for await (const event of stream) {
            if (event.type !== 'session.status_idle') continue;
            if (event.stop_reason.type !== 'end_turn') throw new Error(`compat session ${session.id} went idle with ${event.stop_reason.type}`);
            const ended = performance.now();
            return { create: created - began, open: opened - created, send: sent - opened, turn: ended - sent, total: ended - began };
          }
          throw new Error(`the stream of compat session ${session.id} ended before session.status_idle`);
        } finally {
          stream.controller.abort();
        }
      };

      const native = async (): Promise<Round> => {
        const began = performance.now();
        const session = await post(`${p}/sessions`, { agentId: nativeAgent.id });
        if (session.status !== 'idle') throw new Error(`native session ${session.id} created ${session.status}, expected idle`);
        const created = performance.now();
        const abort = new AbortController();
        const response = await fetch(`${base}${p}/sessions/${session.id}/events?from=now`, {
          headers: { authorization: api.authorization, accept: 'text/event-stream' },
          signal: abort.signal,
        });
        if (response.status !== 200 || !response.body) throw new Error(`native session stream answered ${response.status}`);
        const opened = performance.now();
        try {
          const started = await post(`${p}/sessions/${session.id}/runs`, { message: MESSAGE });
          const sent = performance.now();
          for await (const { kind, data } of sseFrames(response.body)) {
            if (!SETTLED.has(kind)) continue;
            if (data.aggregateId !== started.id)
              throw new Error(`native session ${session.id}: ${kind} of run ${String(data.aggregateId)}, expected run ${started.id}`);
            if (kind !== 'run.completed') throw new Error(`native run ${started.id} settled as ${kind}`);
            const ended = performance.now();
            return { create: created - began, open: opened - created, send: sent - opened, turn: ended - sent, total: ended - began };
          }
          throw new Error(`the stream of native session ${session.id} ended before run.completed`);
        } finally {
          abort.abort();
        }
      };

      for (let i = 0; i < settings.warmup; i++) {
        await compat();
        await native();
      }
      const compatRounds: Round[] = [];
      const nativeRounds: Round[] = [];
      for (let round = 0; round < settings.rounds; round++) {
        // Alternating which goes first, so drift on this shared machine hits both sides alike.
        if (round % 2 === 0) {
          compatRounds.push(await compat());
          nativeRounds.push(await native());
        } else {
          nativeRounds.push(await native());
          compatRounds.push(await compat());
        }
      }

      const totals = (rounds: Round[]) => rounds.map((r) => r.total);
      const compatP50 = p50(totals(compatRounds));
      const nativeP50 = p50(totals(nativeRounds));
      const ratio = compatP50 / nativeP50;
      console.log(
        `  one-turn session, create → turn end seen (${settings.rounds} rounds each after ${settings.warmup} warm-up):` +
          ` compat SDK p50 ${compatP50.toFixed(1)} / p95 ${p95(totals(compatRounds)).toFixed(1)} ms;` +
          ` native p50 ${nativeP50.toFixed(1)} / p95 ${p95(totals(nativeRounds)).toFixed(1)} ms`,
      );
      console.log(
        `  phases p50 compat / native: ` +
          PHASES.map(
            (phase) => `${PHASE_NAMES[phase]} ${p50(compatRounds.map((r) => r[phase])).toFixed(1)} / ${p50(nativeRounds.map((r) => r[phase])).toFixed(1)} ms`,
          ).join('; '),
      );
      console.log(`  compat/native p50 ${ratio.toFixed(2)}× (target ≤ ${TARGET}×)${ratio > TARGET ? ' — MISSED' : ''}`);
      return [
        {
          name: 'one-turn session p50 through the Anthropic SDK on /compat/anthropic, create → session.status_idle end_turn on its stream (baseline: the same turn through the native API, create → run.completed on the session stream)',
          unit: 'ms',
          value: compatP50,
          baseline: nativeP50,
          ratio,
          target: TARGET,
          better: 'lower',
        },
      ];
    } finally {
      (server as http.Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
}

if (import.meta.main) {
  printRecords(await run());
}
