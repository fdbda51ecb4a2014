import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { InstantModelServer } from '../instant-model-server.ts';
import { PEER_APPS_DIR } from './install.ts';
import type { Peer } from './peer.ts';
import { freeLocalPort, killHard, startProcess, stopProcess, waitUntil, type PeerProcess } from './processes.ts';

/**
 * Mastra: two `@mastra/core` agents with Mastra memory on PostgreSQL (`@mastra/pg`, its own
 * database), in a Node process behind a minimal HTTP front (apps/mastra-agent.mjs) so it is
 * driven and killed like the others. A run is one `agent.generate` on a new memory thread.
 */
export function mastraPeer(options: { model: InstantModelServer; databaseUrl: string }): Peer {
  let app: PeerProcess | null = null;
  let base = '';
  const boot = async () => {
    const port = await freeLocalPort();
    app = startProcess(process.execPath, ['mastra-agent.mjs'], {
      cwd: PEER_APPS_DIR,
      env: { PORT: String(port), DATABASE_URL: options.databaseUrl, MODEL_BASE_URL: options.model.baseUrl, MODEL_API_KEY: 'sk-instant' },
    });
    base = `http://127.0.0.1:${port}`;
    const started = app;
    await waitUntil(started, 'mastra app', () => started.output().includes('listening'));
  };
  const run = async (message: string, tools: boolean, threadId = randomUUID()) => {
    const response = await fetch(`${base}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId, message, tools }),
    });
    const result = (await response.json()) as { text?: string; error?: string };
    if (response.status !== 200 || result.text !== 'Done.') throw new Error(`mastra answered ${response.status}: ${JSON.stringify(result).slice(0, 200)}`);
  };
  return {
    name: 'Mastra 1.71.0 (memory on PostgreSQL)',
    setup: '`@mastra/core` 1.71.0 `Agent.generate` with `@mastra/memory` on `@mastra/pg` (PostgreSQL), in its own Node process behind a minimal HTTP front',
    start: boot,
    oneTurn: () => run('Hello.', false),
    twoTurn: () => run('call lookup {"city":"Paris"}', true),
    processes: () => ({ groups: [app!.child.pid!], postgres: true }),
    async crashCheck() {
      const marker = `crash-${Date.now()}`;
      const threadId = randomUUID();
      void run(`sleep 3000 ${marker}`, false, threadId).catch(() => {});
      while (options.model.requestsMentioning(marker) === 0) await delay(20);
      await killHard(app!);
      await boot();
      await delay(15_000); // room for anything that would resume the call by itself
      const thread = (await (await fetch(`${base}/threads/${threadId}`)).json()) as { roles?: string[] };
      const answered = thread.roles?.includes('assistant') ?? false;
      const calls = options.model.requestsMentioning(marker);
      return { durable: answered, detail: `15 s after restart the thread holds [${(thread.roles ?? []).join(', ')}]; model called ${calls}×` };
    },
    async stop() {
      if (app) await stopProcess(app);
    },
  };
}
