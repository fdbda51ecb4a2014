import { setTimeout as delay } from 'node:timers/promises';
import type { InstantModelServer } from '../instant-model-server.ts';
import { PEER_APPS_DIR, PEERS_DIR } from './install.ts';
import type { Peer } from './peer.ts';
import { answers, freeLocalPort, killHard, startProcess, stopProcess, waitUntil, type PeerProcess } from './processes.ts';
import * as path from 'node:path';
import { rmSync } from 'node:fs';

/**
 * LangGraph.js: the agent server from `@langchain/langgraph-cli` (`langgraphjs dev`, its
 * in-memory storage persisted to `.langgraph_api/`) serving two prebuilt ReAct agents
 * (apps/langgraph-agent.mjs). A run is `POST /threads` then `POST /threads/{id}/runs/wait`.
 */
export function langgraphPeer(options: { model: InstantModelServer }): Peer {
  let server: PeerProcess | null = null;
  let base = '';
  const boot = async () => {
    const port = await freeLocalPort();
    server = startProcess(
      path.join(PEERS_DIR, 'node_modules', '.bin', 'langgraphjs'),
      ['dev', '--port', String(port), '--host', '127.0.0.1', '--no-browser', '--config', 'langgraph.json'],
      {
        cwd: PEER_APPS_DIR,
        env: { MODEL_BASE_URL: options.model.baseUrl, MODEL_API_KEY: 'sk-instant', LANGSMITH_TRACING: 'false', LANGGRAPH_NO_TELEMETRY: 'true' },
      },
    );
    base = `http://127.0.0.1:${port}`;
    await waitUntil(server, 'langgraph dev server', () => answers(`${base}/ok`));
  };
  const post = async (url: string, body: unknown) => {
    const response = await fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const result = (await response.json()) as any;
    if (response.status >= 300) throw new Error(`langgraph answered ${response.status}: ${JSON.stringify(result).slice(0, 200)}`);
    return result;
  };
  const run = async (assistant: string, message: string) => {
    const thread = await post('/threads', {});
    const state = await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: assistant, input: { messages: [{ role: 'user', content: message }] } });
    const last = state.messages?.at(-1);
    if (last?.type !== 'ai' || last.content !== 'Done.') throw new Error(`langgraph run ended with ${JSON.stringify(last).slice(0, 200)}`);
  };
  return {
    name: 'LangGraph.js 1.5.1 agent server (dev)',
    setup:
      '`langgraphjs dev` (`@langchain/langgraph-cli` 1.5.1, in-memory storage persisted to disk) with `@langchain/langgraph` 1.7.3 prebuilt ReAct agents and `ChatOpenAI`; `POST /threads` + `POST /threads/{id}/runs/wait`',
    async start() {
      rmSync(path.join(PEER_APPS_DIR, '.langgraph_api'), { recursive: true, force: true });
      await boot();
    },
    oneTurn: () => run('plain', 'Hello.'),
    twoTurn: () => run('tool', 'call lookup {"city":"Paris"}'),
    processes: () => ({ groups: [server!.child.pid!] }),
    async crashCheck() {
      const marker = `crash-${Date.now()}`;
      const thread = await post('/threads', {});
      const created = await post(`/threads/${thread.thread_id}/runs`, {
        assistant_id: 'plain',
        input: { messages: [{ role: 'user', content: `sleep 3000 ${marker}` }] },
      });
      while (options.model.requestsMentioning(marker) === 0) await delay(20);
      await killHard(server!);
      await boot();
      const deadline = Date.now() + 60_000;
      let status = 'unknown';
      while (Date.now() < deadline) {
        const response = await fetch(`${base}/threads/${thread.thread_id}/runs/${created.run_id}`);
        status = response.ok ? ((await response.json()) as { status: string }).status : `HTTP ${response.status}`;
        if (status === 'success') break;
        if (status === 'error' || response.status === 404) break;
        await delay(250);
      }
      const calls = options.model.requestsMentioning(marker);
      return { durable: status === 'success', detail: `after restart the run is ${status}; model called ${calls}×` };
    },
    async stop() {
      if (server) await stopProcess(server);
    },
  };
}
