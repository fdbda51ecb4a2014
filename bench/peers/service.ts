import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { takeSseFrames } from '../../domain/sse-frames.ts';
import { INSTANT_MODEL_API_KEY, VENDOR_A_BASE_URL_ENV, type InstantModelServer } from '../instant-model-server.ts';
import { apiFor, REQUEST_LIMITS_OFF } from '../support.ts';
import type { Peer } from './peer.ts';
import { answers, freeLocalPort, killByMarker, killHard, startProcess, stopProcess, waitUntil, type PeerProcess } from './processes.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const nodeBinary = path.join(projectRoot, 'node_modules', '.bin', 'node');
const SETTLED = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out']);

/**
 * This service as a new user runs it: `npm start` (API, worker and the local Temporal dev server
 * from temporal-dev.yaml) on embedded PGlite or on PostgreSQL (`DATABASE_URL`), driven over HTTP
 * with an API key: `POST /sessions`, then the run's settlement read from the project's SSE feed
 * (one stream per bench, as an integration would follow it). The two-turn agent's `lookup` is a
 * platform tool module the worker runs.
 */
export function servicePeer(options: {
  name: string;
  model: InstantModelServer;
  databaseUrl?: string;
  env?: Record<string, string>;
  /** `split`: `npm run worker` and `npm run api` as two processes (PostgreSQL only); the crash check kills the worker. */
  topology?: 'one-process' | 'split';
}): Peer {
  const split = options.topology === 'split';
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-peer-'));
  let server: PeerProcess | null = null;
  let baseUrl = '';
  let api: Awaited<ReturnType<typeof apiFor>>;
  let projectPath = '';
  const agents = { plain: '', tool: '' };
  const feed = settledFeed();

  let worker: PeerProcess | null = null;
  const serviceEnv = () => ({
    HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'warn',
    DATABASE_URL: options.databaseUrl,
    [VENDOR_A_BASE_URL_ENV]: options.model.baseUrl,
    SVC_PLATFORM_TOOL_MODULES: 'bench/peers/apps/lookup-tool.ts',
    ...REQUEST_LIMITS_OFF,
    ...options.env,
  });
  /** The process that executes runs: `npm start`, or the worker of the split topology. */
  const bootWorker = async () => {
    // 'worker started' is the worker's one info line at start; it logs nothing per run at info.
    const started = startProcess(nodeBinary, ['scripts/worker.ts'], { cwd: projectRoot, env: { ...serviceEnv(), SVC_LOG_LEVEL: 'info' } });
    worker = started;
    await waitUntil(started, `${options.name} worker`, () => started.output().includes('"msg":"worker started"'));
  };
  const boot = async () => {
    const port = await freeLocalPort();
    if (split) {
      await bootWorker();
      const started = startProcess(nodeBinary, ['scripts/api.ts'], { cwd: projectRoot, env: { ...serviceEnv(), PORT: String(port) } });
      server = started;
      await waitUntil(started, `${options.name} api`, () => answers(`http://127.0.0.1:${port}/v1/context`));
    } else {
      const started = startProcess(nodeBinary, ['scripts/start.ts'], { cwd: projectRoot, env: { ...serviceEnv(), PORT: String(port) } });
      server = started;
      await waitUntil(started, options.name, () => started.output().includes('Agent runtime service is running'));
    }
    baseUrl = `http://127.0.0.1:${port}`;
  };
  const session = async (agentId: string, message: string): Promise<string> =>
    (await api.call('POST', `${projectPath}/sessions`, { agentId, initialMessage: message })).latestRunId as string;
  const runOnce = async (agentId: string, message: string) => {
    const runId = await session(agentId, message);
    const kind = await feed.settled(runId);
    if (kind !== 'run.completed') throw new Error(`run ${runId} settled as ${kind}`);
  };

  return {
    name: options.name,
    setup: `${split ? '`npm run worker` and `npm run api` as two processes (the worker starts the local Temporal dev server)' : '`npm start` (API + worker in one process, the local Temporal dev server)'} on ${options.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}; HTTP with an API key: \`POST /sessions\`, settlement from the SSE feed`,
    async start() {
      await boot();
      api = await apiFor({ request: (requestPath, init) => fetch(`${baseUrl}${requestPath}`, init) }, 'peer bench');
      projectPath = `/v1/projects/${api.projectId}`;
      const provider = await api.call('POST', `${projectPath}/model-providers`, {
        key: 'instant',
        displayName: 'Instant',
        providerType: 'vendor_a',
        apiKey: INSTANT_MODEL_API_KEY,
      });
      await api.call('POST', `${projectPath}/model-presets`, {
        key: 'instant',
        displayName: 'Instant',
        providerId: provider.id,
        model: 'vendor_a/gpt-5.1',
        routing: {},
      });
      const config = { systemPrompt: 'You are a helpful assistant.', modelPreset: 'instant', limits: { maxTurns: 4 } };
      agents.plain = (await api.call('POST', `${projectPath}/agents`, { name: 'One turn', initialConfig: config })).id;
      const lookup = {
        name: 'lookup',
        description: 'Looks up a city.',
        owner: 'platform',
        approval: 'never',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        outputSchema: { type: 'object', properties: {}, additionalProperties: true },
      };
      agents.tool = (await api.call('POST', `${projectPath}/agents`, { name: 'Two turns', initialConfig: { ...config, tools: [lookup] } })).id;
      feed.follow(`${baseUrl}${projectPath}/events`, api.authorization);
    },
    oneTurn: () => runOnce(agents.plain, 'Hello.'),
    twoTurn: () => runOnce(agents.tool, 'call lookup {"city":"Paris"}'),
    processes: () => ({
      groups: [server!.child.pid!, ...(worker ? [worker.child.pid!] : [])],
      markers: [dataDir],
      postgres: options.databaseUrl !== undefined,
    }),
    async crashCheck() {
      const marker = `crash-${Date.now()}`;
      const runId = await session(agents.plain, `sleep 3000 ${marker}`);
      while (options.model.requestsMentioning(marker) === 0) await delay(20);
      if (split) {
        await killHard(worker!);
        await bootWorker();
      } else {
        await killHard(server!);
        await boot();
      }
      const restarted = Date.now();
      const deadline = restarted + 90_000;
      while (Date.now() < deadline) {
        const response = await fetch(`${baseUrl}${projectPath}/runs/${runId}`, { headers: { authorization: api.authorization } });
        const run = response.ok ? ((await response.json()) as { state: string }) : null;
        if (run && ['completed', 'failed', 'cancelled', 'timed_out'].includes(run.state)) {
          const calls = options.model.requestsMentioning(marker);
          return {
            durable: run.state === 'completed',
            detail: `run ${run.state} ${((Date.now() - restarted) / 1000).toFixed(1)} s after restart; model called ${calls}×`,
          };
        }
        await delay(250);
      }
      return { durable: false, detail: 'not settled 90 s after restart' };
    },
    async stop() {
      feed.close();
      if (server) await stopProcess(server);
      if (worker) await stopProcess(worker);
      killByMarker(dataDir); // the dev server a restarted process reused
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Follows a project's SSE feed (resuming with Last-Event-ID) and resolves waiters on run settlement. */
function settledFeed() {
  const seen = new Map<string, string>();
  const waiters = new Map<string, (kind: string) => void>();
  const controller = new AbortController();
  const follow = (url: string, authorization: string) => {
    void (async () => {
      let lastEventId: string | undefined;
      while (!controller.signal.aborted) {
        try {
          const response = await fetch(url, {
            headers: { authorization, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
            signal: controller.signal,
          });
          const reader = response.body!.getReader();
          const decoder = new TextDecoder();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            const taken = takeSseFrames(buffer + decoder.decode(value, { stream: true }));
            buffer = taken.rest;
            for (const frame of taken.frames) {
              if (frame.id) lastEventId = frame.id;
              if (!frame.event || !SETTLED.has(frame.event) || !frame.data) continue;
              const runId = (JSON.parse(frame.data) as { aggregateId: string }).aggregateId;
              seen.set(runId, frame.event);
              waiters.get(runId)?.(frame.event);
            }
          }
        } catch {
          if (controller.signal.aborted) return;
        }
        await delay(200);
      }
    })();
  };
  return {
    follow,
    settled: (runId: string) =>
      new Promise<string>((resolve) => {
        const known = seen.get(runId);
        if (known) return resolve(known);
        waiters.set(runId, (kind) => {
          waiters.delete(runId);
          resolve(kind);
        });
      }),
    close: () => controller.abort(),
  };
}
