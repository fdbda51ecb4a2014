/**
 * The standard agent protocols (issue 50) against the native API, on the machine's PostgreSQL with
 * the real runtime and the instant model (`runtime-app.ts`), the app served over HTTP on
 * 127.0.0.1 so every side pays the same sockets.
 *
 * One one-turn conversation per round and side, each timed from its first request to the turn's
 * answer in hand:
 * - A2A: the official `@a2a-js/sdk` client (JSON-RPC binding, the card resolved once per bench
 *   from `/a2a/{p}/agents/{agentId}/`), one blocking `sendMessage` of a new conversation; the
 *   Task it returns must be `TASK_STATE_COMPLETED` with the answer in its artifacts.
 * - MCP: the official `@modelcontextprotocol/sdk` client over Streamable HTTP to `/mcp/{p}`,
 *   connected once; one `tools/call` of the agent's tool (its key) with `{message}`, which must
 *   not be `isError` and carries the answer.
 * - native (the baseline): `fetch` with the same API key: `POST /v1/projects/{p}/sessions` with
 *   `initialMessage` (the session and its first run in one request, as the doors open one), the
 *   session's stream `GET /sessions/{id}/events` from its start (nothing to miss between the two
 *   requests) read until that run's `run.completed`, then `GET /runs/{runId}/messages` for the
 *   answer's text, which the stream never carries. The ratios against native up to
 *   `run.completed` alone (one request fewer) are printed beside.
 * Each side has its own agent, made once (same system prompt, preset `m-a` and limits). Warm-up
 * rounds first, then rounds rotating which side goes first, so drift on this shared machine hits
 * all alike. Targets: A2A p50 ≤ 1.2× native p50, MCP p50 ≤ 1.2× native p50. Also printed: the p95s
 * and the p50 of each side's phases on the run's own timestamps (first request → run created,
 * created → settled, settled → answer in hand), native's own steps, and, after the rounds, a
 * diagnostic A2A variant: `returnImmediately`, then `GetTask` every 5 ms until completed.
 *
 *   node_modules/.bin/node bench/agent-protocols.bench.ts
 *   AGENT_PROTOCOLS_ROUNDS=60 node_modules/.bin/node bench/agent-protocols.bench.ts
 */
import { randomUUID } from 'node:crypto';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { serve } from '@hono/node-server';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { percentile, printRecords, sseFrames, type BenchRecord } from './support.ts';

type Options = { rounds?: number; warmup?: number };

const TARGET = 1.2;
const MESSAGE = 'hi';
const SYSTEM_PROMPT = 'Answer briefly.';
const LIMITS = { maxTurns: 8 };
/** The polled A2A variant's interval (a diagnostic, not a side). */
const POLL_MS = 5;
const SETTLED = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out']);

/** Milliseconds of one round: `total` is first request → answer in hand; `runId` to read its timestamps after. */
type Round = { total: number; runId: string; began: number; ended: number; steps?: NativeSteps };
/** Native's own steps: create answered, run.completed seen, answer read. */
type NativeSteps = { create: number; completed: number; answer: number };
/** One round's phases on the run's timestamps (wall clock, ms). */
type Phases = { accept: number; run: number; tail: number };
const PHASES_ORDER = ['accept', 'run', 'tail'] as const;
const PHASE_NAMES: Record<keyof Phases, string> = { accept: 'first request → run created', run: 'created → settled', tail: 'settled → answer in hand' };

const SIDES = ['native', 'a2a', 'mcp'] as const;
type Side = (typeof SIDES)[number];
const SIDE_NAMES: Record<Side, string> = { native: 'native', a2a: 'A2A', mcp: 'MCP' };

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p50 = (values: number[]) => percentile(sorted(values), 50);
const p95 = (values: number[]) => percentile(sorted(values), 95);
/** Wall-clock now in ms with sub-ms precision, comparable with the database's timestamps. */
const wallNow = () => performance.timeOrigin + performance.now();

const textOfTask = (task: Task) =>
  task.artifacts.flatMap((artifact) => artifact.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : ''))).join('');
const textOfResult = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const fromEnv = Number(process.env.AGENT_PROTOCOLS_ROUNDS);
  const settings = { rounds: Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 30, warmup: 5, ...options };
  return withBenchRuntimeApp('agent-protocols', {}, async ({ api, projectPath: p, app }) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    let mcp: McpClient | null = null;
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const key = api.authorization.slice('Bearer '.length);
      const agentOf = async (name: string) =>
        (await api.call('POST', `${p}/agents`, {
          name,
          initialConfig: { systemPrompt: SYSTEM_PROMPT, modelPreset: 'm-a', limits: { ...LIMITS } },
        })) as { id: string; key: string };
      const nativeAgent = await agentOf('Native bench');
      const a2aAgent = await agentOf('A2A bench');
      const mcpAgent = await agentOf('MCP bench');

      const authed: typeof fetch = (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('Authorization', `Bearer ${key}`);
        return fetch(input, { ...init, headers });
      };
      const a2a = await new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
        preferredTransports: ['JSONRPC'],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: authed }),
      }).createFromUrl(`${base}/a2a/${api.projectId}/agents/${a2aAgent.id}/`);

      mcp = new McpClient({ name: 'agent-protocols-bench', version: '1.0.0' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp/${api.projectId}`), {
          requestInit: { headers: { Authorization: `Bearer ${key}` } },
        }),
      );
      const { tools } = await mcp.listTools();
      if (!tools.some((tool) => tool.name === mcpAgent.key))
        throw new Error(`the MCP server lists no tool ${mcpAgent.key}: ${tools.map((tool) => tool.name).join(', ')}`);

      const getJson = async (path: string) => {
        const response = await fetch(`${base}${path}`, { headers: { authorization: api.authorization, accept: 'application/json' } });
        if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
        return (await response.json()) as any;
      };

      const native = async (): Promise<Round> => {
        const began = wallNow();
        const response = await fetch(`${base}${p}/sessions`, {
          method: 'POST',
          headers: {
            authorization: api.authorization,
            accept: 'application/json',
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({ agentId: nativeAgent.id, initialMessage: MESSAGE }),
        });
        if (response.status >= 300) throw new Error(`POST ${p}/sessions answered ${response.status}: ${await response.text()}`);
        const session = (await response.json()) as { id: string; latestRunId: string | null };
        const runId = session.latestRunId;
        if (!runId) throw new Error(`native session ${session.id} was created without a run`);
        const created = wallNow();
        const abort = new AbortController();
        try {
          const stream = await fetch(`${base}${p}/sessions/${session.id}/events`, {
            headers: { authorization: api.authorization, accept: 'text/event-stream' },
            signal: abort.signal,
          });
          if (stream.status !== 200 || !stream.body) throw new Error(`native session stream answered ${stream.status}`);
          let completed = 0;
          for await (const { kind, data } of sseFrames(stream.body)) {
            if (!SETTLED.has(kind) || data.aggregateId !== runId) continue;
            if (kind !== 'run.completed') throw new Error(`native run ${runId} settled as ${kind}`);
            completed = wallNow();
            break;
          }
          if (!completed) throw new Error(`the stream of native session ${session.id} ended before run.completed`);
          abort.abort();
          const messages = (await getJson(`${p}/runs/${runId}/messages`)) as { data: Array<{ role: string; text: string | null }> };
          const answer = messages.data.filter((message) => message.role === 'assistant' && message.text).at(-1)?.text;
          if (!answer) throw new Error(`native run ${runId} has no answer`);
          const ended = wallNow();
          return { total: ended - began, runId, began, ended, steps: { create: created - began, completed: completed - began, answer: ended - completed } };
        } finally {
          abort.abort();
        }
      };

      const a2aRequest = (returnImmediately: boolean) => ({
        tenant: '',
        message: {
          messageId: randomUUID(),
          contextId: '',
          taskId: '',
          role: Role.ROLE_USER,
          parts: [{ content: { $case: 'text' as const, value: MESSAGE }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
        metadata: undefined,
      });

      const viaA2a = async (): Promise<Round> => {
        const began = wallNow();
        const result = await a2a.sendMessage(a2aRequest(false));
        const ended = wallNow();
        if ('messageId' in result) throw new Error('A2A sendMessage answered a Message, expected a Task');
        if (result.status?.state !== TaskState.TASK_STATE_COMPLETED)
          throw new Error(`A2A task ${result.id} answered in state ${String(result.status?.state)}, expected TASK_STATE_COMPLETED`);
        if (!textOfTask(result)) throw new Error(`A2A task ${result.id} completed without an answer`);
        return { total: ended - began, runId: result.id, began, ended };
      };

      const viaMcp = async (): Promise<Round> => {
        const began = wallNow();
        const result = (await mcp!.callTool({ name: mcpAgent.key, arguments: { message: MESSAGE } })) as CallToolResult;
        const ended = wallNow();
        if (result.isError) throw new Error(`MCP tools/call of ${mcpAgent.key} answered an error: ${textOfResult(result)}`);
        const content = result.structuredContent as { runId?: string; state?: string } | undefined;
        if (content?.state !== 'completed' || !content.runId) throw new Error(`MCP tools/call answered ${JSON.stringify(content)}, expected a completed run`);
        if (!textOfResult(result)) throw new Error(`MCP run ${content.runId} completed without an answer`);
        return { total: ended - began, runId: content.runId, began, ended };
      };

      /** The diagnostic variant: `returnImmediately`, then `GetTask` every `POLL_MS` until completed. */
      const viaA2aPolled = async (): Promise<{ accepted: number; total: number }> => {
        const began = wallNow();
        const result = await a2a.sendMessage(a2aRequest(true));
        const accepted = wallNow() - began;
        if ('messageId' in result) throw new Error('A2A sendMessage answered a Message, expected a Task');
        let task = result;
        while (task.status?.state !== TaskState.TASK_STATE_COMPLETED) {
          if (task.status?.state !== TaskState.TASK_STATE_SUBMITTED && task.status?.state !== TaskState.TASK_STATE_WORKING)
            throw new Error(`A2A task ${task.id} went ${String(task.status?.state)}, expected TASK_STATE_COMPLETED`);
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          task = await a2a.getTask({ tenant: '', id: result.id });
        }
        if (!textOfTask(task)) throw new Error(`A2A task ${task.id} completed without an answer`);
        return { accepted, total: wallNow() - began };
      };

      const sides: Record<Side, () => Promise<Round>> = { native, a2a: viaA2a, mcp: viaMcp };
      for (let i = 0; i < settings.warmup; i++) for (const side of SIDES) await sides[side]();
      const rounds: Record<Side, Round[]> = { native: [], a2a: [], mcp: [] };
      for (let round = 0; round < settings.rounds; round++) {
        // Rotating which side goes first, so drift on this shared machine hits every side alike.
        for (let i = 0; i < SIDES.length; i++) {
          const side = SIDES[(round + i) % SIDES.length]!;
          rounds[side].push(await sides[side]());
        }
      }

      // The polled variant after the measured rounds, beside the blocking call it stands for.
      const polled: Array<{ accepted: number; total: number }> = [];
      for (let round = 0; round < settings.rounds; round++) polled.push(await viaA2aPolled());

      // Where the time goes, on each run's own timestamps (read after the measured rounds).
      const phasesOf = async (r: Round): Promise<Phases> => {
        const row = (await getJson(`${p}/runs/${r.runId}`)) as { createdAt: string; settledAt: string | null };
        const created = Date.parse(row.createdAt);
        const settled = Date.parse(row.settledAt ?? '');
        return { accept: created - r.began, run: settled - created, tail: r.ended - settled };
      };
      const phases: Record<Side, Phases[]> = { native: [], a2a: [], mcp: [] };
      for (const side of SIDES) for (const r of rounds[side]) phases[side].push(await phasesOf(r));

      const totals = (side: Side) => rounds[side].map((r) => r.total);
      const median: Record<Side, number> = { native: p50(totals('native')), a2a: p50(totals('a2a')), mcp: p50(totals('mcp')) };
      const nativeToCompleted = p50(rounds.native.map((r) => r.steps!.completed));
      console.log(`  one-turn conversation, first request → answer in hand (${settings.rounds} rounds each after ${settings.warmup} warm-up):`);
      for (const side of SIDES) console.log(`    ${SIDE_NAMES[side].padEnd(6)} p50 ${median[side].toFixed(1)} / p95 ${p95(totals(side)).toFixed(1)} ms`);
      console.log(
        `    native steps p50: create answered ${p50(rounds.native.map((r) => r.steps!.create)).toFixed(1)} ms,` +
          ` run.completed seen ${nativeToCompleted.toFixed(1)} ms, then answer read ${p50(rounds.native.map((r) => r.steps!.answer)).toFixed(1)} ms`,
      );
      console.log(
        `  phases p50 (${PHASES_ORDER.map((phase) => PHASE_NAMES[phase]).join('; ')}), on the run's timestamps: ` +
          SIDES.map((side) => `${SIDE_NAMES[side]} ${PHASES_ORDER.map((phase) => p50(phases[side].map((x) => x[phase])).toFixed(1)).join(' / ')} ms`).join(
            '; ',
          ),
      );
      console.log(
        `  A2A with returnImmediately, then GetTask every ${POLL_MS} ms (after the rounds, ${settings.rounds} of them):` +
          ` task answered p50 ${p50(polled.map((x) => x.accepted)).toFixed(1)} ms (native's create ${p50(rounds.native.map((r) => r.steps!.create)).toFixed(1)} ms),` +
          ` completed task in hand p50 ${p50(polled.map((x) => x.total)).toFixed(1)} / p95 ${p95(polled.map((x) => x.total)).toFixed(1)} ms`,
      );
      const records: BenchRecord[] = [];
      for (const side of ['a2a', 'mcp'] as const) {
        const ratio = median[side] / median.native;
        console.log(
          `  ${SIDE_NAMES[side]}/native p50 ${ratio.toFixed(2)}× (target ≤ ${TARGET}×)${ratio > TARGET ? ' — MISSED' : ''};` +
            ` against native up to run.completed only ${(median[side] / nativeToCompleted).toFixed(2)}×`,
        );
        records.push({
          name:
            side === 'a2a'
              ? 'one-turn A2A SendMessage p50 through @a2a-js/sdk (blocking, JSON-RPC), request → completed Task (baseline: the same turn through the native API, POST /sessions with initialMessage → run.completed on the session stream → the run’s messages read)'
              : 'one-turn MCP tools/call p50 through @modelcontextprotocol/sdk (Streamable HTTP), request → result (baseline: the same turn through the native API, POST /sessions with initialMessage → run.completed on the session stream → the run’s messages read)',
          unit: 'ms',
          value: median[side],
          baseline: median.native,
          ratio,
          target: TARGET,
          better: 'lower',
        });
      }
      return records;
    } finally {
      await mcp?.close();
      (server as http.Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
}

if (import.meta.main) {
  printRecords(await run());
}
