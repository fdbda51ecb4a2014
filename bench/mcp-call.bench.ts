/**
 * MCP tool call overhead inside a run, on the machine's PostgreSQL with the real runtime:
 *
 * 1. A one-tool-turn run (model asks for the tool, the tool answers, the model replies) whose
 *    tool is `mcp__bench__ping` on a local instant MCP server (the official SDK server, Streamable
 *    HTTP), against the same run whose tool is an instant platform tool `ping` registered in the
 *    worker. Both go through the same workflow, tool-call records and model turns; the difference
 *    is the MCP call: the live scope check, policy and credential load, one SDK client session
 *    (connect, initialize, call) over the pinned client. p50 of POST /sessions → settled; target
 *    ≤ 1.3×.
 * 2. The floor: a bare SDK client session (connect, initialize, callTool, close) against the same
 *    server, outside the service. Printed beside the per-call cost seen in the run.
 *
 *   node_modules/.bin/node bench/mcp-call.bench.ts
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApp } from '../api/app.ts';
import { createLogger } from '../config/logger.ts';
import { parseSettings } from '../config/settings.ts';
import { openDatabase } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { runWorkflowId } from '../domain/runs/workflow.ts';
import { createAppDeps } from '../scripts/app-deps.ts';
import { createRuntime } from '../scripts/runtime.ts';
import { startInstantMcpServer } from './instant-mcp-server.ts';
import { INSTANT_MODEL_API_KEY, startInstantModelServer, VENDOR_A_BASE_URL_ENV } from './instant-model-server.ts';
import { apiFor, percentile, printRecords, withBenchDatabase, type BenchRecord } from './support.ts';
import { startBenchTemporal } from './temporal.ts';

type Options = { runs?: number; warmup?: number; floorCalls?: number };

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = { runs: 60, warmup: 10, floorCalls: 200, ...options };
  const logger = createLogger({ level: 'error' });
  const temporal = await startBenchTemporal('mcp-call', logger);
  const model = await startInstantModelServer();
  const mcp = await startInstantMcpServer();
  try {
    return await withBenchDatabase(async (url) => {
      const migrations = await openDatabase({ driver: 'postgres', url, maxConnections: 1 });
      await migrateDatabase(migrations);
      await migrations.close();
      const database = await openDatabase({ driver: 'postgres', url, maxConnections: 10 });
      const appSettings = parseSettings({ SVC_DATA_DIR: temporal.dataDir, SVC_LOG_LEVEL: 'error', [VENDOR_A_BASE_URL_ENV]: model.baseUrl, SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK: 'true' });
      let runtimeStarter: Parameters<typeof createAppDeps>[0]['runStarter'] | null = null;
      const deps = await createAppDeps({
        settings: appSettings,
        logger,
        database,
        runStarter: {
          start: (input) => runtimeStarter!.start(input),
          requestCancellation: (runId) => runtimeStarter!.requestCancellation(runId),
          notify: (runId, signal) => runtimeStarter!.notify(runId, signal),
        },
      });
      const runtime = await createRuntime({
        settings: appSettings,
        logger,
        database,
        dependencies: { keyring: deps.keyring, deploymentPresets: deps.deploymentPresets, sandboxSnapshots: deps.sandboxSnapshots },
        temporal: { address: temporal.devServer.address, namespace: temporal.devServer.namespace, taskQueue: `bench-mcp-${randomUUID()}` },
        platformTools: { ping: async () => ({ status: 'success', value: { content: [{ type: 'text', text: 'pong' }] } }) },
      });
      runtimeStarter = runtime.runStarter;
      const running = runtime.run();
      try {
        const api = await apiFor(createApp(deps), 'mcp bench');
        const p = `/v1/projects/${api.projectId}`;
        const provider = await api.call('POST', `${p}/model-providers`, { key: 'p-a', displayName: 'vendor_a', providerType: 'vendor_a', apiKey: INSTANT_MODEL_API_KEY });
        await api.call('POST', `${p}/model-presets`, { key: 'm-a', displayName: 'vendor_a', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {} });
        const credential = await api.call('POST', `${p}/mcp-credentials`, { key: 'bench', displayName: 'Bench', kind: 'static_bearer', secret: 'bench-secret-token' });
        const policy = await api.call('POST', `${p}/mcp-credential-policies`, {
          key: 'bench', displayName: 'Bench', credentialId: credential.id, exactOrigin: mcp.url, pathPrefix: '/mcp', timeoutMs: 10_000, maximumResponseBytes: 65_536,
        });
        const server = await api.call('POST', `${p}/mcp-servers`, { key: 'bench', displayName: 'Bench', endpointUrl: mcp.endpointUrl, transport: 'streamable_http' });
        const discovered = await api.call('POST', `${p}/mcp-servers/${server.id}/discover`, { credentialPolicyVersionId: policy.id });
        const toolset = await api.call('POST', `${p}/mcp-toolsets`, { key: 'bench', displayName: 'Bench', serverVersionId: discovered.version.id, tools: [{ remoteToolName: 'ping', approval: 'never' }] });
        const base = { systemPrompt: 'Use the tool.', modelPreset: 'm-a', limits: { maxTurns: 4 } };
        const platformAgent = await api.call('POST', `${p}/agents`, {
          name: 'Platform ping',
          initialConfig: {
            ...base,
            tools: [{ name: 'ping', description: 'Answers pong.', owner: 'platform', approval: 'never', inputSchema: { type: 'object', properties: {} }, outputSchema: { type: 'object', properties: {}, additionalProperties: true } }],
          },
        });
        const mcpAgent = await api.call('POST', `${p}/agents`, {
          name: 'MCP ping',
          initialConfig: { ...base, mcpBindings: [{ toolsetVersionId: toolset.latestVersionId, credentialPolicyVersionId: policy.id, namespace: 'bench' }] },
        });

        const client = runtime.client.client;
        const oneRun = async (agentId: string, tool: string) => {
          const began = performance.now();
          const session = await api.call('POST', `${p}/sessions`, { agentId, initialMessage: `call ${tool}` });
          const state = await client.workflow.getHandle(runWorkflowId(session.latestRunId)).result();
          if (state !== 'completed') throw new Error(`run ${session.latestRunId} settled ${String(state)}`);
          return performance.now() - began;
        };
        const floorCall = async () => {
          const began = performance.now();
          const sdk = new Client({ name: 'bench-floor', version: '1.0.0' });
          await sdk.connect(new StreamableHTTPClientTransport(new URL(mcp.endpointUrl), { requestInit: { headers: { authorization: 'Bearer bench-secret-token' } } }));
          await sdk.callTool({ name: 'ping', arguments: {} });
          await sdk.close();
          return performance.now() - began;
        };

        for (let i = 0; i < settings.warmup; i++) {
          await oneRun(platformAgent.id, 'ping');
          await oneRun(mcpAgent.id, 'mcp__bench__ping');
          await floorCall();
        }
        const platformRuns: number[] = [];
        const mcpRuns: number[] = [];
        // Alternating, so drift on this shared machine hits both sides alike.
        for (let i = 0; i < settings.runs; i++) {
          platformRuns.push(await oneRun(platformAgent.id, 'ping'));
          mcpRuns.push(await oneRun(mcpAgent.id, 'mcp__bench__ping'));
        }
        const floor: number[] = [];
        for (let i = 0; i < settings.floorCalls; i++) floor.push(await floorCall());
        const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
        const platformP50 = percentile(sorted(platformRuns), 50);
        const mcpP50 = percentile(sorted(mcpRuns), 50);
        const floorP50 = percentile(sorted(floor), 50);
        console.log(`  one-tool-turn run p50: platform tool ${platformP50.toFixed(1)} ms, MCP tool ${mcpP50.toFixed(1)} ms (MCP call cost in the run ≈ ${(mcpP50 - platformP50).toFixed(1)} ms)`);
        console.log(`  floor: bare SDK client session (connect, initialize, callTool, close) p50 ${floorP50.toFixed(2)} ms, p95 ${percentile(sorted(floor), 95).toFixed(2)} ms`);
        return [
          {
            name: 'one-tool-turn run p50 with an MCP tool on an instant server (baseline: the same run with an instant platform tool)',
            unit: 'ms',
            value: mcpP50,
            baseline: platformP50,
            ratio: mcpP50 / platformP50,
            target: 1.3,
            better: 'lower',
          },
        ];
      } finally {
        await runtime.shutdown();
        await running.catch(() => {});
        await database.close();
      }
    });
  } finally {
    await mcp.close();
    await model.close();
    await temporal.stop();
  }
}

if (import.meta.main) {
  printRecords(await run());
}
