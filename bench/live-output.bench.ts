/**
 * Live model output (issue 30): `GET /v1/projects/{id}/sessions/{id}/events?deltas=true` carrying
 * `message.delta` frames as the instant model (`instant-model-server.ts`, vendor_a's streamed
 * Responses API) writes its reply. Everything that timestamps lives in this process (the model
 * server and every SSE client), so a chunk's write and its arrival share one clock.
 *
 * 1. Delta latency: from the model writing a text chunk (`onTextChunk`) to an SSE client receiving
 *    the frame that carries it, 100 clients reading 10 concurrently streaming sessions (10 per
 *    session), replies of 40 chunks 20 ms apart. p50 (≤ 5 ms) and p99 (≤ 25 ms), each also against
 *    a baseline in the same run, rounds alternating: a bare `node:http` pass-through that reads the
 *    same model's stream and writes each chunk straight to its 100 SSE clients (≤ 2×). Measured
 *    with API + worker in this process (`runtime-app.ts`, PostgreSQL), then with `scripts/api.ts`
 *    and `scripts/worker.ts` as two processes on PostgreSQL. Where the time goes: a listener of
 *    the deltas' NOTIFY channel in this process (the worker and the transport), and in-process the
 *    moment the worker hands each delta to `pg_notify` (the worker alone).
 * 2. Run overhead of streaming: p50 of a one-turn follow-up run's create-to-settled (instant model,
 *    a reply of 4 chunks) with a `deltas=true` session-stream reader attached, against the same run
 *    with no reader, alternating (≤ 1.05×). In-process.
 * 3. 1,000 idle session streams: RSS growth (/proc) of an API process (`scripts/api.ts`, started
 *    fresh once the 1,000 sessions exist, its stream path warmed with 20 streams) after opening a
 *    `deltas=true` stream on each of 1,000 idle sessions (≤ 100 MiB), and its RSS once they are
 *    closed. Subscribers left once 1,000 streams close, where they can be counted: the in-process
 *    app's live-output bus and event tail (must be 0; a separate process does not expose them).
 *
 *   node_modules/.bin/node bench/live-output.bench.ts
 *   LIVE_OUTPUT_PART=two-process node_modules/.bin/node bench/live-output.bench.ts   (part 1, two processes only)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import postgres from 'postgres';
import { createLogger } from '../config/logger.ts';
import { runWorkflowId } from '../domain/runs/workflow.ts';
import { MESSAGE_DELTAS_CHANNEL } from '../processes/message-delta-bus.ts';
import { startDevServer } from '../temporal/dev-server.ts';
import {
  INSTANT_MODEL_API_KEY,
  startInstantModelServer,
  VENDOR_A_BASE_URL_ENV,
  type InstantModelServer,
  type InstantModelServerOptions,
} from './instant-model-server.ts';
import { answers, freeLocalPort, startProcess, stopProcess, waitUntil, type PeerProcess } from './peers/processes.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { apiFor, percentile, pool, printRecords, REQUEST_LIMITS_OFF, withBenchDatabase, type BenchRecord } from './support.ts';
import { takeSseFrames } from '../domain/sse-frames.ts';

type Options = {
  sessions?: number;
  readersPerSession?: number;
  chunks?: number;
  chunkSize?: number;
  chunkDelayMs?: number;
  /** Latency rounds per side (each: every session streams one reply), after `warmupRounds`. */
  rounds?: number;
  warmupRounds?: number;
  /** Timed runs per side of the overhead check, after `overheadWarmup` rounds. */
  overheadRuns?: number;
  overheadWarmup?: number;
  idleStreams?: number;
};
type Settings = Required<Options>;

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nodeBinary = path.join(projectRoot, 'node_modules', '.bin', 'node');
const SETTLED = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out']);
const STREAM_LIMITS_OFF = { SVC_EVENT_STREAMS_PER_PRINCIPAL: '0', SVC_EVENT_STREAMS_PER_PROJECT: '0' } as const;
const P50_CEILING_MS = 5;
const P99_CEILING_MS = 25;
const RSS_CEILING_MIB = 100;
/** The overhead check's reply: 4 chunks of 7 characters, 1 ms apart. */
const SHORT_REPLY = { replyText: 'Streamed in a few chunks here', chunkSize: 7, chunkDelayMs: 1 };

type Target = { port: number; path: string; headers: Record<string, string> };
/** Where each streamed chunk ended (offset + length) and when it arrived (performance.now()). */
type Arrival = { runId: string; end: number; at: number };

/** One latency sample: milliseconds from a chunk's write to its arrival, and which chunk of its reply. */
type Sample = { ms: number; chunk: number };

/** One SSE client: the `message.delta` frames it received and the runs it saw settle. */
type Reader = { arrivals: Arrival[]; settled: Map<string, string>; close(): void };

/** Opens one SSE client (its own connection); resolves once the response headers arrived. */
function openReader(target: Target): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const arrivals: Arrival[] = [];
    const settled = new Map<string, string>();
    const request = http.get({ host: '127.0.0.1', port: target.port, path: target.path, headers: target.headers, agent: false });
    request.on('error', reject);
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`SSE connect to ${target.path} answered ${response.statusCode}`));
      }
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const at = performance.now();
        const { frames, rest } = takeSseFrames(buffered + chunk);
        buffered = rest;
        for (const { event, data } of frames) {
          if (event === null || data === null) continue;
          if (event === 'message.delta') {
            const delta = JSON.parse(data) as { runId: string; offset: number; text: string };
            arrivals.push({ runId: delta.runId, end: delta.offset + delta.text.length, at });
          } else if (SETTLED.has(event)) {
            settled.set((JSON.parse(data) as { aggregateId: string }).aggregateId, event);
          }
        }
      });
      response.on('error', () => {});
      request.removeListener('error', reject);
      request.on('error', () => {});
      resolve({ arrivals, settled, close: () => request.destroy() });
    });
  });
}

/** Opens `targets.length` readers, 50 connections at a time. */
async function openReaders(targets: Target[]): Promise<Reader[]> {
  const readers: Reader[] = [];
  for (let i = 0; i < targets.length; i += 50) readers.push(...(await Promise.all(targets.slice(i, i + 50).map(openReader))));
  return readers;
}

async function until(what: string, ready: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}

/**
 * The model's side of the clock: every chunk it writes, by the request's last user message (each
 * measured run's message is unique), with the offset its text ends at and when it was written.
 */
function chunkClock() {
  const written = new Map<string, Array<{ end: number; at: number }>>();
  return {
    written,
    onTextChunk: ((text, at) => {
      const time = performance.now();
      if (at.userText === null || !at.userText.startsWith('live ')) return;
      let list = written.get(at.userText);
      if (!list) written.set(at.userText, (list = []));
      list.push({ end: at.offset + text.length, at: time });
    }) satisfies InstantModelServerOptions['onTextChunk'],
  };
}

/**
 * Latency samples of one round: for every chunk of each stream's reply and every reader of that
 * stream, the time from the chunk's write to the arrival of the first frame covering its end.
 */
function collect(
  clock: ReturnType<typeof chunkClock>,
  streams: Array<{ runId: string; userText: string; readers: Reader[] }>,
  chunks: number,
  into: Sample[],
): void {
  for (const stream of streams) {
    const written = clock.written.get(stream.userText);
    if (!written || written.length !== chunks)
      throw new Error(`the model wrote ${written?.length ?? 0} chunks for "${stream.userText}", not ${chunks} (a retried call?)`);
    for (const reader of stream.readers) {
      const arrivals = reader.arrivals.filter((arrival) => arrival.runId === stream.runId);
      let i = 0;
      for (const [index, chunk] of written.entries()) {
        while (i < arrivals.length && arrivals[i]!.end < chunk.end) i++;
        if (i === arrivals.length) throw new Error(`a chunk of run ${stream.runId} never reached a reader`);
        into.push({ ms: arrivals[i]!.at - chunk.at, chunk: index });
      }
    }
  }
  for (const stream of streams) for (const reader of stream.readers) reader.arrivals.length = 0;
}

/** Reads `MESSAGE_DELTAS_CHANNEL` on its own connection: when each delta's NOTIFY reached a listener. */
async function notifyListener(databaseUrl: string): Promise<{ reader: Reader; stop(): Promise<void> }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const arrivals: Arrival[] = [];
  const reader: Reader = { arrivals, settled: new Map(), close: () => {} };
  const listening = await sql.listen(MESSAGE_DELTAS_CHANNEL, (payload) => {
    const at = performance.now();
    type Signal = { kind: string; runId: string; offset: number; text: string };
    const signals = JSON.parse(payload) as Signal[] | Signal;
    for (const signal of Array.isArray(signals) ? signals : [signals]) {
      if (signal.kind === 'delta') arrivals.push({ runId: signal.runId, end: signal.offset + signal.text.length, at });
    }
  });
  return {
    reader,
    async stop() {
      await listening.unlisten();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * The baseline: a bare `node:http` server relaying the instant model's stream. Clients follow
 * `GET /relay/<stream>`; `relay(stream, runId, userText)` asks the model for the same streamed
 * reply (the Responses API, as vendor_a does) and writes each text delta, as a `message.delta`
 * frame, straight to that stream's clients.
 */
async function startPassThrough(model: InstantModelServer) {
  const clients = new Map<number, Set<http.ServerResponse>>();
  const server = http.createServer((request, response) => {
    const stream = Number(/^\/relay\/(\d+)$/.exec(request.url ?? '')?.[1] ?? NaN);
    if (!Number.isInteger(stream)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    response.flushHeaders();
    let set = clients.get(stream);
    if (!set) clients.set(stream, (set = new Set()));
    set.add(response);
    response.on('close', () => set.delete(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const upstream = new URL(`${model.baseUrl}/responses`);
  return {
    port: (server.address() as AddressInfo).port,
    clientCount: () => [...clients.values()].reduce((sum, set) => sum + set.size, 0),
    relay(stream: number, runId: string, userText: string): Promise<void> {
      return new Promise((resolve, reject) => {
        const body = JSON.stringify({ model: 'gpt-5.1', stream: true, input: [{ role: 'user', content: userText }] });
        const request = http.request(
          {
            host: upstream.hostname,
            port: upstream.port,
            path: upstream.pathname,
            method: 'POST',
            headers: { authorization: `Bearer ${INSTANT_MODEL_API_KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (response) => {
            let buffered = '';
            let offset = 0;
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              const { frames, rest } = takeSseFrames(buffered + chunk);
              buffered = rest;
              for (const frame of frames) {
                if (frame.event !== 'response.output_text.delta' || frame.data === null) continue;
                const { delta } = JSON.parse(frame.data) as { delta: string };
                const out = Buffer.from(`event: message.delta\ndata: ${JSON.stringify({ runId, turn: 1, attempt: 1, offset, text: delta })}\n\n`);
                offset += delta.length;
                for (const client of clients.get(stream) ?? []) client.write(out);
              }
            });
            response.on('end', () => resolve());
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** How the service side of a latency measurement is reached: over HTTP for streams, `call` for the rest. */
type ServiceSide = {
  port: number;
  projectId: string;
  authorization: string;
  call: (method: string, requestPath: string, body: unknown) => Promise<any>;
  agentId: string;
  /** Resolves when the run settled (completed; throws otherwise). */
  settle: (runId: string) => Promise<void>;
};

/**
 * Part 1 on one topology: 10 prepared sessions with 10 readers each against 10 pass-through streams
 * with 10 readers each; rounds alternate sides (and which goes first). Returns the p50/p99 of both
 * and of the NOTIFY listener.
 */
async function measureLatency(
  settings: Settings,
  model: { server: InstantModelServer; options: InstantModelServerOptions; clock: ReturnType<typeof chunkClock> },
  service: ServiceSide,
  databaseUrl: string,
  /** Where the worker hands each delta to `pg_notify`, when this process can see it (in-process). */
  notifySent: Reader | null = null,
) {
  const { sessions: sessionCount, readersPerSession, chunks } = settings;
  const reply = Array.from({ length: chunks * settings.chunkSize }, (_, i) => 'abcdefghijklmnopqrstuvwxyz ,.'[i % 29]).join('');
  Object.assign(model.options, { replyText: reply, chunkSize: settings.chunkSize, chunkDelayMs: settings.chunkDelayMs });
  const p = `/v1/projects/${service.projectId}`;
  const prepared = await Promise.all(
    Array.from({ length: sessionCount }, async (_, i) => {
      const session = await service.call('POST', `${p}/sessions`, { agentId: service.agentId, initialMessage: `prepare ${i}` });
      await service.settle(session.latestRunId as string);
      return session.id as string;
    }),
  );
  const passThrough = await startPassThrough(model.server);
  const listener = await notifyListener(databaseUrl);
  const ourReaders: Reader[][] = [];
  const baseReaders: Reader[][] = [];
  try {
    for (const sessionId of prepared) {
      const target: Target = {
        port: service.port,
        path: `${p}/sessions/${sessionId}/events?deltas=true&from=now`,
        headers: { authorization: service.authorization, accept: 'text/event-stream' },
      };
      ourReaders.push(await openReaders(Array.from({ length: readersPerSession }, () => target)));
    }
    for (let stream = 0; stream < sessionCount; stream++) {
      baseReaders.push(await openReaders(Array.from({ length: readersPerSession }, () => ({ port: passThrough.port, path: `/relay/${stream}`, headers: {} }))));
    }
    await until('the pass-through clients', () => passThrough.clientCount() === sessionCount * readersPerSession);
    const samples = { ours: [] as Sample[], base: [] as Sample[], notify: [] as Sample[], sent: [] as Sample[] };
    const full = (readers: Reader[], runId: string) =>
      readers.every((reader) => reader.arrivals.some((arrival) => arrival.runId === runId && arrival.end === reply.length));
    for (let round = 0; round < settings.warmupRounds + settings.rounds; round++) {
      const keep = round >= settings.warmupRounds;
      const ours = async () => {
        const streams = await Promise.all(
          prepared.map(async (sessionId, i) => {
            const userText = `live s${i} r${round}`;
            const run = await service.call('POST', `${p}/sessions/${sessionId}/runs`, { message: userText });
            return { runId: run.id as string, userText, readers: ourReaders[i]! };
          }),
        );
        for (const stream of streams) {
          await until(`run ${stream.runId} streamed and settled`, () => full(stream.readers, stream.runId) && stream.readers[0]!.settled.has(stream.runId));
          const kind = stream.readers[0]!.settled.get(stream.runId);
          if (kind !== 'run.completed') throw new Error(`run ${stream.runId} settled as ${kind}`);
        }
        await until('the NOTIFY listener', () =>
          streams.every((stream) => listener.reader.arrivals.some((arrival) => arrival.runId === stream.runId && arrival.end === reply.length)),
        );
        collect(model.clock, streams, chunks, keep ? samples.ours : []);
        collect(
          model.clock,
          streams.map((stream) => ({ ...stream, readers: [listener.reader] })),
          chunks,
          keep ? samples.notify : [],
        );
        if (notifySent)
          collect(
            model.clock,
            streams.map((stream) => ({ ...stream, readers: [notifySent] })),
            chunks,
            keep ? samples.sent : [],
          );
        for (const stream of streams) model.clock.written.delete(stream.userText);
      };
      const base = async () => {
        const streams = Array.from({ length: sessionCount }, (_, i) => ({
          runId: `relay-${i}-${round}`,
          userText: `live relay s${i} r${round}`,
          readers: baseReaders[i]!,
        }));
        await Promise.all(streams.map((stream, i) => passThrough.relay(i, stream.runId, stream.userText)));
        for (const stream of streams) await until(`relay ${stream.runId}`, () => full(stream.readers, stream.runId));
        collect(model.clock, streams, chunks, keep ? samples.base : []);
        for (const stream of streams) model.clock.written.delete(stream.userText);
      };
      if (round % 2 === 0) {
        await ours();
        await base();
      } else {
        await base();
        await ours();
      }
      listener.reader.arrivals.length = 0;
    }
    // Where the tail lies: a reply's first and last fifth overlap the other sessions' runs starting
    // and settling (their transactions, workflow tasks and durable events); the middle does not.
    const stats = (values: Sample[]) => {
      const sorted = values.map((sample) => sample.ms).sort((a, b) => a - b);
      const phase = (keep: (chunk: number) => boolean) =>
        percentile(
          values
            .filter((sample) => keep(sample.chunk))
            .map((sample) => sample.ms)
            .sort((a, b) => a - b),
          99,
        );
      const fifth = Math.ceil(chunks / 5);
      return {
        p50: percentile(sorted, 50),
        p90: percentile(sorted, 90),
        p99: percentile(sorted, 99),
        max: sorted.at(-1) ?? NaN,
        n: sorted.length,
        p99ByPhase: {
          first: phase((chunk) => chunk < fifth),
          middle: phase((chunk) => chunk >= fifth && chunk < chunks - fifth),
          last: phase((chunk) => chunk >= chunks - fifth),
        },
      };
    };
    return { ours: stats(samples.ours), base: stats(samples.base), notify: stats(samples.notify), sent: notifySent ? stats(samples.sent) : null };
  } finally {
    for (const reader of [...ourReaders.flat(), ...baseReaders.flat()]) reader.close();
    await listener.stop();
    await passThrough.close();
  }
}

function latencyRecords(where: string, settings: Settings, measured: Awaited<ReturnType<typeof measureLatency>>): BenchRecord[] {
  const { ours, base, notify, sent } = measured;
  const f = (value: number) => value.toFixed(2);
  console.log(
    `  ${where}: ${ours.n} samples per side; service p50 ${f(ours.p50)} / p90 ${f(ours.p90)} / p99 ${f(ours.p99)} / max ${f(ours.max)} ms;` +
      ` pass-through p50 ${f(base.p50)} / p90 ${f(base.p90)} / p99 ${f(base.p99)} / max ${f(base.max)} ms`,
  );
  if (sent)
    console.log(`  ${where}: model write → the worker calling pg_notify p50 ${f(sent.p50)} / p90 ${f(sent.p90)} / p99 ${f(sent.p99)} ms (the worker's part)`);
  console.log(
    `  ${where}: model write → the deltas' NOTIFY at a listening process p50 ${f(notify.p50)} / p90 ${f(notify.p90)} / p99 ${f(notify.p99)} ms (the worker's part and the transport)`,
  );
  const phases = (of: typeof ours) => `${f(of.p99ByPhase.first)} / ${f(of.p99ByPhase.middle)} / ${f(of.p99ByPhase.last)}`;
  console.log(
    `  ${where}: p99 in a reply's first fifth / middle / last fifth (the first and last overlap other sessions' runs starting and settling):` +
      ` service ${phases(ours)}, NOTIFY listener ${phases(notify)}, pass-through ${phases(base)} ms`,
  );
  const name = (what: string) =>
    `delta latency ${what}, ${settings.sessions * settings.readersPerSession} readers on ${settings.sessions} streaming sessions, ${where}`;
  return [
    { name: name('p50 vs node:http pass-through'), unit: 'ms', value: ours.p50, baseline: base.p50, ratio: ours.p50 / base.p50, target: 2, better: 'lower' },
    { name: name('p99 vs node:http pass-through'), unit: 'ms', value: ours.p99, baseline: base.p99, ratio: ours.p99 / base.p99, target: 2, better: 'lower' },
    {
      name: name('p50'),
      unit: 'ms',
      value: ours.p50,
      baseline: P50_CEILING_MS,
      against: 'ceiling',
      ratio: ours.p50 / P50_CEILING_MS,
      target: 1,
      better: 'lower',
    },
    {
      name: name('p99'),
      unit: 'ms',
      value: ours.p99,
      baseline: P99_CEILING_MS,
      against: 'ceiling',
      ratio: ours.p99 / P99_CEILING_MS,
      target: 1,
      better: 'lower',
    },
  ];
}

/** Part 1 in-process, part 2, and the in-process subscriber count of part 3. */
async function inProcess(settings: Settings): Promise<BenchRecord[]> {
  const clock = chunkClock();
  const modelOptions: InstantModelServerOptions = { onTextChunk: clock.onTextChunk };
  return withBenchRuntimeApp(
    'live-output',
    { env: { ...STREAM_LIMITS_OFF }, model: modelOptions },
    async ({ api, projectPath: p, runtime, app, deps, model, database, databaseUrl }) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
      await new Promise<void>((resolve) => server.once('listening', resolve));
      try {
        const port = (server.address() as AddressInfo).port;
        const agent = await api.call('POST', `${p}/agents`, {
          name: 'Live',
          initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
        });
        const settle = async (runId: string) => {
          const state = await runtime.client.client.workflow.getHandle(runWorkflowId(runId)).result();
          if (state !== 'completed') throw new Error(`run ${runId} settled ${String(state)}`);
        };
        const service: ServiceSide = { port, projectId: api.projectId, authorization: api.authorization, call: api.call, agentId: agent.id, settle };
        // Diagnostic: when the worker's bus hands each delta to pg_notify (the handle API and worker share).
        const notifySent: Reader = { arrivals: [], settled: new Map(), close: () => {} };
        const notify = database.notify.bind(database);
        database.notify = async (channel, payload) => {
          if (channel === MESSAGE_DELTAS_CHANNEL) {
            const at = performance.now();
            type Signal = { kind: string; runId: string; offset: number; text: string };
            const signals = JSON.parse(payload) as Signal[] | Signal;
            for (const signal of Array.isArray(signals) ? signals : [signals]) {
              if (signal.kind === 'delta') notifySent.arrivals.push({ runId: signal.runId, end: signal.offset + signal.text.length, at });
            }
          }
          return notify(channel, payload);
        };
        let measured: Awaited<ReturnType<typeof measureLatency>>;
        try {
          measured = await measureLatency(settings, { server: model, options: modelOptions, clock }, service, databaseUrl, notifySent);
        } finally {
          database.notify = notify;
        }
        const records = latencyRecords('API + worker in one process (PostgreSQL)', settings, measured);

        // Part 2: a follow-up run of a fresh session (its first run done) with and without a reader.
        Object.assign(modelOptions, SHORT_REPLY);
        const withReader: number[] = [];
        const without: number[] = [];
        const freshSession = async () => {
          const session = await api.call('POST', `${p}/sessions`, { agentId: agent.id, initialMessage: 'first' });
          await settle(session.latestRunId as string);
          return session.id as string;
        };
        const timedRun = async (sessionId: string) => {
          const began = performance.now();
          const run = await api.call('POST', `${p}/sessions/${sessionId}/runs`, { message: 'again' });
          await settle(run.id as string);
          return { ms: performance.now() - began, runId: run.id as string };
        };
        const sideWithReader = async (sessionId: string, keep: boolean) => {
          const reader = await openReader({
            port,
            path: `${p}/sessions/${sessionId}/events?deltas=true&from=now`,
            headers: { authorization: api.authorization, accept: 'text/event-stream' },
          });
          try {
            const { ms, runId } = await timedRun(sessionId);
            if (keep) withReader.push(ms);
            await until(
              'the reader to see the whole reply',
              () => reader.arrivals.some((arrival) => arrival.runId === runId && arrival.end === SHORT_REPLY.replyText.length),
              10_000,
            );
          } finally {
            reader.close();
          }
        };
        const sideWithout = async (sessionId: string, keep: boolean) => {
          const { ms } = await timedRun(sessionId);
          if (keep) without.push(ms);
        };
        for (let round = 0; round < settings.overheadWarmup + settings.overheadRuns; round++) {
          const keep = round >= settings.overheadWarmup;
          const [a, b] = await Promise.all([freshSession(), freshSession()]);
          // Alternating, so drift on this shared machine hits both sides alike.
          if (round % 2 === 0) {
            await sideWithReader(a, keep);
            await sideWithout(b, keep);
          } else {
            await sideWithout(b, keep);
            await sideWithReader(a, keep);
          }
        }
        const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
        const readerP50 = percentile(sorted(withReader), 50);
        const bareP50 = percentile(sorted(without), 50);
        console.log(
          `  one-turn follow-up run (reply of 4 chunks 1 ms apart), ${withReader.length} per side: with a deltas=true reader p50 ${readerP50.toFixed(2)} / p95 ${percentile(sorted(withReader), 95).toFixed(2)} ms;` +
            ` without p50 ${bareP50.toFixed(2)} / p95 ${percentile(sorted(without), 95).toFixed(2)} ms`,
        );
        records.push({
          name: 'one-turn run create→settled p50 with a deltas=true session-stream reader (baseline: the same run without a reader), in-process',
          unit: 'ms',
          value: readerP50,
          baseline: bareP50,
          ratio: readerP50 / bareP50,
          target: 1.05,
          better: 'lower',
        });

        // Part 3, where the subscribers can be counted: 1,000 streams on 10 sessions, opened and closed.
        const sessions = await Promise.all(Array.from({ length: 10 }, () => freshSession()));
        const before = { bus: deps.messageDeltas.stats().subscribers, tail: deps.eventTail.stats().subscribers };
        const readers = await openReaders(
          Array.from({ length: settings.idleStreams }, (_, i) => ({
            port,
            path: `${p}/sessions/${sessions[i % sessions.length]}/events?deltas=true`,
            headers: { authorization: api.authorization, accept: 'text/event-stream' },
          })),
        );
        const open = { bus: deps.messageDeltas.stats().subscribers, tail: deps.eventTail.stats().subscribers };
        for (const reader of readers) reader.close();
        const closedAt = performance.now();
        await until(
          'the subscribers to go',
          () => deps.messageDeltas.stats().subscribers === before.bus && deps.eventTail.stats().subscribers === before.tail,
          10_000,
        ).catch(() => {});
        const left = { bus: deps.messageDeltas.stats().subscribers - before.bus, tail: deps.eventTail.stats().subscribers - before.tail };
        console.log(
          `  ${settings.idleStreams} deltas=true session streams in-process: live-output bus subscribers ${open.bus - before.bus}, event tail subscribers ${open.tail - before.tail} while open;` +
            ` ${left.bus} and ${left.tail} left ${(performance.now() - closedAt).toFixed(0)} ms after closing`,
        );
        records.push({
          name: `subscribers left after closing ${settings.idleStreams} deltas=true session streams (in-process: live-output bus + event tail)`,
          unit: 'subscribers',
          value: left.bus + left.tail,
          baseline: open.bus - before.bus + (open.tail - before.tail),
          against: 'open',
          ratio: (left.bus + left.tail) / Math.max(1, open.bus - before.bus + (open.tail - before.tail)),
          target: 0,
          better: 'lower',
        });
        return records;
      } finally {
        (server as http.Server).closeAllConnections();
        server.close();
        await deps.messageDeltas.stop();
        await deps.eventTail.stop();
      }
    },
  );
}

function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Part 1 with `scripts/api.ts` and `scripts/worker.ts` as two processes, then part 3 on that API. */
async function splitProcesses(settings: Settings): Promise<BenchRecord[]> {
  // The dev server alone (free ports, in memory, headless), as `startBenchTemporal` starts it but
  // without installing the SDK's native runtime here: no worker runs in this process, and a runtime
  // with nothing registered would keep the process from exiting.
  const temporalDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-live-temporal-'));
  const devServer = await startDevServer({
    projectRoot,
    dataDir: temporalDir,
    cliPath: process.env.TEMPORAL_CLI_PATH || undefined,
    logger: createLogger({ level: 'warn' }),
    overrides: { port: 0, inMemory: true, headless: true },
  });
  const clock = chunkClock();
  const modelOptions: InstantModelServerOptions = { onTextChunk: clock.onTextChunk };
  const model = await startInstantModelServer(modelOptions);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-live-'));
  const processes: PeerProcess[] = [];
  try {
    return await withBenchDatabase(async (databaseUrl) => {
      const port = await freeLocalPort();
      const env = {
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        SVC_DATA_DIR: dataDir,
        SVC_LOG_LEVEL: 'warn',
        TEMPORAL_ADDRESS: devServer.address,
        TEMPORAL_NAMESPACE: devServer.namespace,
        TEMPORAL_TASK_QUEUE: `bench-live-${randomUUID()}`,
        [VENDOR_A_BASE_URL_ENV]: model.baseUrl,
        ...REQUEST_LIMITS_OFF,
        ...STREAM_LIMITS_OFF,
      };
      // The API first: it migrates the empty database.
      const apiProcess = startProcess(nodeBinary, ['scripts/api.ts'], { cwd: projectRoot, env: { ...env, PORT: String(port) } });
      processes.push(apiProcess);
      await waitUntil(apiProcess, 'api process', () => answers(`http://127.0.0.1:${port}/v1/context`));
      // 'worker started' is the worker's one info line at start.
      const workerProcess = startProcess(nodeBinary, ['scripts/worker.ts'], { cwd: projectRoot, env: { ...env, SVC_LOG_LEVEL: 'info' } });
      processes.push(workerProcess);
      await waitUntil(workerProcess, 'worker process', () => workerProcess.output().includes('"msg":"worker started"'));

      const baseUrl = `http://127.0.0.1:${port}`;
      const api = await apiFor({ request: (requestPath, init) => fetch(`${baseUrl}${requestPath}`, init) }, 'live-output bench');
      const p = `/v1/projects/${api.projectId}`;
      const provider = await api.call('POST', `${p}/model-providers`, {
        key: 'p-a',
        displayName: 'vendor_a',
        providerType: 'vendor_a',
        apiKey: INSTANT_MODEL_API_KEY,
      });
      await api.call('POST', `${p}/model-presets`, { key: 'm-a', displayName: 'vendor_a', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {} });
      const agent = await api.call('POST', `${p}/agents`, {
        name: 'Live',
        initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
      });
      const settle = async (runId: string) => {
        const deadline = performance.now() + 60_000;
        for (;;) {
          const response = await fetch(`${baseUrl}${p}/runs/${runId}`, { headers: { authorization: api.authorization } });
          const { state } = (await response.json()) as { state: string };
          if (state === 'completed') return;
          if (['failed', 'cancelled', 'timed_out'].includes(state)) throw new Error(`run ${runId} settled ${state}`);
          if (performance.now() > deadline) throw new Error(`run ${runId} still ${state} after 60 s`);
          await sleep(20);
        }
      };
      const service: ServiceSide = { port, projectId: api.projectId, authorization: api.authorization, call: api.call, agentId: agent.id, settle };
      const records = latencyRecords(
        'worker and API as two processes (PostgreSQL)',
        settings,
        await measureLatency(settings, { server: model, options: modelOptions, clock }, service, databaseUrl),
      );

      // Part 3: 1,000 idle sessions (instant one-chunk replies), a deltas=true stream on each.
      Object.assign(modelOptions, { replyText: 'Done.', chunkSize: undefined, chunkDelayMs: 0 });
      const rssAfterLatency = rssMiB(apiProcess.child.pid!);
      const sessions: Array<{ id: string; runId: string }> = [];
      const created = performance.now();
      await pool(settings.idleStreams, 16, async (i) => {
        const session = await api.call('POST', `${p}/sessions`, { agentId: agent.id, initialMessage: `idle ${i}` });
        sessions.push({ id: session.id as string, runId: session.latestRunId as string });
      });
      await pool(sessions.length, 16, (i) => settle(sessions[i]!.runId));
      const createdMs = performance.now() - created;
      const rssAfterSessions = rssMiB(apiProcess.child.pid!);
      // A fresh API process holds the streams: the first one's heap still has room (and garbage) left
      // by the runs above, which would hide what the streams take.
      const freshPort = await freeLocalPort();
      const fresh = startProcess(nodeBinary, ['scripts/api.ts'], { cwd: projectRoot, env: { ...env, PORT: String(freshPort) } });
      processes.push(fresh);
      await waitUntil(fresh, 'second api process', () => answers(`http://127.0.0.1:${freshPort}/v1/context`));
      const pid = fresh.child.pid!;
      const streamTo = (session: { id: string }): Target => ({
        port: freshPort,
        path: `${p}/sessions/${session.id}/events?deltas=true`,
        headers: { authorization: api.authorization, accept: 'text/event-stream' },
      });
      // Each stream first replays its session's events; idle once its run's settlement arrived.
      const replayed = (readers: Reader[], of: typeof sessions) => readers.every((reader, i) => reader.settled.has(of[i]!.runId));
      // Warm the stream path (code loaded and compiled) with 20 streams, opened and closed.
      const warm = await openReaders(sessions.slice(0, 20).map(streamTo));
      await until('the warm-up streams to replay', () => replayed(warm, sessions.slice(0, 20)), 30_000);
      for (const reader of warm) reader.close();
      await sleep(2_000);
      const rssBefore = rssMiB(pid);
      const opened = performance.now();
      const readers = await openReaders(sessions.map(streamTo));
      await until('every stream to replay its session', () => replayed(readers, sessions), 120_000);
      const openMs = performance.now() - opened;
      await sleep(2_000);
      const rssOpen = rssMiB(pid);
      for (const reader of readers) reader.close();
      await sleep(5_000);
      const rssClosed = rssMiB(pid);
      console.log(
        `  first API process RSS: ${rssAfterLatency.toFixed(1)} MiB after the latency rounds, ${rssAfterSessions.toFixed(1)} MiB after creating ${settings.idleStreams} sessions` +
          ` (created and settled in ${(createdMs / 1000).toFixed(1)} s)`,
      );
      console.log(
        `  fresh API process RSS: ${rssBefore.toFixed(1)} MiB after 20 streams opened and closed, ${rssOpen.toFixed(1)} MiB with a deltas=true stream open on each of` +
          ` ${settings.idleStreams} idle sessions (opened and replayed in ${(openMs / 1000).toFixed(1)} s), ${rssClosed.toFixed(1)} MiB 5 s after closing them`,
      );
      const growth = rssOpen - rssBefore;
      records.push({
        name: `API process RSS growth with ${settings.idleStreams} idle deltas=true session streams open (a fresh scripts/api.ts beside a worker process, PostgreSQL)`,
        unit: 'MiB',
        value: growth,
        baseline: RSS_CEILING_MIB,
        against: 'ceiling',
        ratio: growth / RSS_CEILING_MIB,
        target: 1,
        better: 'lower',
      });
      return records;
    });
  } finally {
    for (const started of processes.reverse()) await stopProcess(started);
    await model.close();
    await devServer.stop();
    rmSync(temporalDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings: Settings = {
    sessions: 10,
    readersPerSession: 10,
    chunks: 40,
    chunkSize: 8,
    chunkDelayMs: 20,
    rounds: 10,
    warmupRounds: 2,
    overheadRuns: 80,
    overheadWarmup: 10,
    idleStreams: 1000,
    ...options,
  };
  // `LIVE_OUTPUT_PART=two-process` measures only the two-process latency (with 20 idle streams).
  if (process.env.LIVE_OUTPUT_PART === 'two-process') return splitProcesses({ ...settings, idleStreams: 20 });
  return [...(await inProcess(settings)), ...(await splitProcesses(settings))];
}

if (import.meta.main) {
  printRecords(await run());
}
