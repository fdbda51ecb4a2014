import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { InstantModelServer } from '../instant-model-server.ts';
import { PEER_APPS_DIR, PEERS_DIR } from './install.ts';
import type { Peer } from './peer.ts';
import { answers, freeLocalPort, killHard, startProcess, stopProcess, waitUntil, type PeerProcess } from './processes.ts';

const SYSTEM = 'You are a helpful assistant.';

/**
 * Restate: `restate-server` (from npm) with its data in a temporary folder, and the agent as a
 * durable service handler (apps/restate-agent.mjs, every model and tool call journaled with
 * `ctx.run`) in a Node process of its own, registered through the admin API. Runs are calls
 * through the HTTP ingress, which answer when the handler returns.
 */
export function restatePeer(options: { model: InstantModelServer }): Peer {
  const baseDir = mkdtempSync(path.join(os.tmpdir(), 'restate-peer-'));
  let server: PeerProcess | null = null;
  let handler: PeerProcess | null = null;
  let ingress = '';
  let handlerPort = 0;

  const startHandler = async () => {
    handler = startProcess(process.execPath, ['restate-agent.mjs'], {
      cwd: PEER_APPS_DIR,
      env: { PORT: String(handlerPort), MODEL_BASE_URL: options.model.baseUrl, MODEL_API_KEY: 'sk-instant' },
    });
    const started = handler;
    await waitUntil(started, 'restate handler', () => started.output().includes('listening'));
  };
  const call = async (body: Record<string, unknown>) => {
    const response = await fetch(`${ingress}/agent/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const result = (await response.json()) as { text?: string };
    if (response.status !== 200 || result.text !== 'Done.') throw new Error(`restate answered ${response.status}: ${JSON.stringify(result).slice(0, 200)}`);
  };

  return {
    name: 'Restate 1.7.12 (durable handler)',
    setup:
      '`restate-server` 1.7.12 (npm) + a `@restatedev/restate-sdk` 1.17.2 service handler journaling each model and tool call with `ctx.run`; called through the HTTP ingress',
    async start() {
      const [ingressPort, adminPort, nodePort, pgPort] = [await freeLocalPort(), await freeLocalPort(), await freeLocalPort(), await freeLocalPort()];
      handlerPort = await freeLocalPort();
      server = startProcess(path.join(PEERS_DIR, 'node_modules', '.bin', 'restate-server'), ['--base-dir', baseDir, '--no-logo', '--log-format', 'compact'], {
        cwd: baseDir,
        env: {
          RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
          RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
          RESTATE_BIND_ADDRESS: `127.0.0.1:${nodePort}`,
          RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS: `127.0.0.1:${pgPort}`,
          RESTATE_DISABLE_TELEMETRY: 'true',
          RESTATE_LOG_FILTER: 'warn',
        },
      });
      ingress = `http://127.0.0.1:${ingressPort}`;
      const admin = `http://127.0.0.1:${adminPort}`;
      await waitUntil(server, 'restate-server', () => answers(`${admin}/health`));
      await startHandler();
      const registered = await fetch(`${admin}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri: `http://127.0.0.1:${handlerPort}` }),
      });
      if (!registered.ok) throw new Error(`restate registration answered ${registered.status}: ${await registered.text()}`);
      await waitUntil(server, 'restate ingress', () => answers(`${ingress}/restate/health`));
    },
    oneTurn: () => call({ system: SYSTEM, message: 'Hello.' }),
    twoTurn: () => call({ system: SYSTEM, message: 'call lookup {"city":"Paris"}', tools: true }),
    processes: () => ({ groups: [server!.child.pid!, handler!.child.pid!] }),
    async crashCheck() {
      const marker = `crash-${Date.now()}`;
      const sent = await fetch(`${ingress}/agent/run/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': marker },
        body: JSON.stringify({ system: SYSTEM, message: `sleep 3000 ${marker}` }),
      });
      const { invocationId } = (await sent.json()) as { invocationId: string };
      while (options.model.requestsMentioning(marker) === 0) await delay(20);
      await killHard(handler!);
      await startHandler();
      const attached = await fetch(`${ingress}/restate/invocation/${invocationId}/attach`, { signal: AbortSignal.timeout(90_000) });
      const output = (await attached.json()) as { text?: string };
      const calls = options.model.requestsMentioning(marker);
      return {
        durable: attached.status === 200 && output.text === 'Done.',
        detail: `invocation answered ${attached.status} after the handler restarted; model called ${calls}×`,
      };
    },
    async stop() {
      if (handler) await stopProcess(handler);
      if (server) await stopProcess(server);
      rmSync(baseDir, { recursive: true, force: true });
    },
  };
}
