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
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startInstantMcpServer } from './instant-mcp-server.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { percentile, printRecords, type BenchRecord } from './support.ts';

type Options = { runs?: number; warmup?: number; floorCalls?: number };

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = { runs: 60, warmup: 10, floorCalls: 200, ...options };
  const mcp = await startInstantMcpServer();
  try {
    return await withBenchRuntimeApp(
      'mcp-call',
      {
        env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' },
        platformTools: { ping: async () => ({ status: 'success', value: { content: [{ type: 'text', text: 'pong' }] } }) },
      },
      async ({ api, projectPath: p, timedSession }) => {
        const credential = await api.call('POST', `${p}/mcp-credentials`, {
          key: 'bench',
          displayName: 'Bench',
          kind: 'static_bearer',
          secret: 'bench-secret-token',
        });
        const policy = await api.call('POST', `${p}/mcp-credential-policies`, {
          key: 'bench',
          displayName: 'Bench',
          credentialId: credential.id,
          exactOrigin: mcp.url,
          pathPrefix: '/mcp',
          timeoutMs: 10_000,
          maximumResponseBytes: 65_536,
        });
        const server = await api.call('POST', `${p}/mcp-servers`, {
          key: 'bench',
          displayName: 'Bench',
          endpointUrl: mcp.endpointUrl,
          transport: 'streamable_http',
        });
        const discovered = await api.call('POST', `${p}/mcp-servers/${server.id}/discover`, { credentialPolicyVersionId: policy.id });
        const toolset = await api.call('POST', `${p}/mcp-toolsets`, {
          key: 'bench',
          displayName: 'Bench',
          serverVersionId: discovered.version.id,
          tools: [{ remoteToolName: 'ping', approval: 'never' }],
        });
        const base = { systemPrompt: 'Use the tool.', modelPreset: 'm-a', limits: { maxTurns: 4 } };
        const platformAgent = await api.call('POST', `${p}/agents`, {
          name: 'Platform ping',
          initialConfig: {
            ...base,
            tools: [
              {
                name: 'ping',
                description: 'Answers pong.',
                owner: 'platform',
                approval: 'never',
                inputSchema: { type: 'object', properties: {} },
                outputSchema: { type: 'object', properties: {}, additionalProperties: true },
              },
            ],
          },
        });
        const mcpAgent = await api.call('POST', `${p}/agents`, {
          name: 'MCP ping',
          initialConfig: { ...base, mcpBindings: [{ toolsetVersionId: toolset.latestVersionId, credentialPolicyVersionId: policy.id, namespace: 'bench' }] },
        });
        const floorCall = async () => {
          const began = performance.now();
          const sdk = new Client({ name: 'bench-floor', version: '1.0.0' });
          await sdk.connect(
            new StreamableHTTPClientTransport(new URL(mcp.endpointUrl), { requestInit: { headers: { authorization: 'Bearer bench-secret-token' } } }),
          );
          await sdk.callTool({ name: 'ping', arguments: {} });
          await sdk.close();
          return performance.now() - began;
        };

        for (let i = 0; i < settings.warmup; i++) {
          await timedSession(platformAgent.id, 'call ping');
          await timedSession(mcpAgent.id, 'call mcp__bench__ping');
          await floorCall();
        }
        const platformRuns: number[] = [];
        const mcpRuns: number[] = [];
        // Alternating, so drift on this shared machine hits both sides alike.
        for (let i = 0; i < settings.runs; i++) {
          platformRuns.push(await timedSession(platformAgent.id, 'call ping'));
          mcpRuns.push(await timedSession(mcpAgent.id, 'call mcp__bench__ping'));
        }
        const floor: number[] = [];
        for (let i = 0; i < settings.floorCalls; i++) floor.push(await floorCall());
        const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
        const platformP50 = percentile(sorted(platformRuns), 50);
        const mcpP50 = percentile(sorted(mcpRuns), 50);
        const floorP50 = percentile(sorted(floor), 50);
        console.log(
          `  one-tool-turn run p50: platform tool ${platformP50.toFixed(1)} ms, MCP tool ${mcpP50.toFixed(1)} ms (MCP call cost in the run ≈ ${(mcpP50 - platformP50).toFixed(1)} ms)`,
        );
        console.log(
          `  floor: bare SDK client session (connect, initialize, callTool, close) p50 ${floorP50.toFixed(2)} ms, p95 ${percentile(sorted(floor), 95).toFixed(2)} ms`,
        );
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
      },
    );
  } finally {
    await mcp.close();
  }
}

if (import.meta.main) {
  printRecords(await run());
}
