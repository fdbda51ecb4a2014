/**
 * `npm run bench:peers`: this service beside LangGraph.js, Mastra and Restate on this machine, in
 * one run, with the same instant OpenAI-compatible model and the same two agents (one turn; two
 * turns with one tool call). Peers are installed into the git-ignored `.peers/` on first use.
 * For each: create-to-settled p50/p95 (sequential), runs settled per second at concurrency 10
 * and 64 with every run accounted for, peak RSS of its processes, and whether a run survives
 * `kill -9` of the process executing it (checked each time, see Peer.crashCheck). Prints the
 * table and writes it to bench/results/peers.md.
 *
 *   PEERS=service-postgres,restate  (default: all)   PEER_SEQUENTIAL=50  PEER_RUNS=200
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startInstantModelServer, type InstantModelServer } from '../instant-model-server.ts';
import { ensurePeersInstalled } from './install.ts';
import { langgraphPeer } from './langgraph.ts';
import { mastraPeer } from './mastra.ts';
import { measurePeer, type Peer, type PeerFigures } from './peer.ts';
import { renderPeerTable } from './report.ts';
import { restatePeer } from './restate.ts';
import { servicePeer } from './service.ts';
import { measureTemporalFloor, type TemporalFloor } from './temporal-floor.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (line: string) => console.log(line);

const peers: Array<[string, (model: InstantModelServer, database: (name: string) => Promise<string>) => Promise<Peer>]> = [
  ['service-embedded', async (model) => servicePeer({ name: 'This service, embedded (PGlite)', model })],
  ['service-postgres', async (model, database) => servicePeer({ name: 'This service, PostgreSQL', model, databaseUrl: await database('svc') })],
  // The default running-runs limit per project (32) makes half of the 64 runs in flight wait for a
  // place; with 64 none waits, so this row is the engine's own cost at that load.
  [
    'service-postgres-limit-64',
    async (model, database) =>
      servicePeer({
        name: 'This service, PostgreSQL, running-runs limit 64',
        model,
        databaseUrl: await database('svc64'),
        env: { SVC_PROJECT_RUNNING_RUNS_LIMIT: '64' },
      }),
  ],
  [
    'service-split',
    async (model, database) =>
      servicePeer({ name: 'This service, PostgreSQL, API and worker processes', model, databaseUrl: await database('split'), topology: 'split' }),
  ],
  ['restate', async (model) => restatePeer({ model })],
  ['mastra', async (model, database) => mastraPeer({ model, databaseUrl: await database('mastra') })],
  ['langgraph', async (model) => langgraphPeer({ model })],
];

const chosen = process.env.PEERS ? process.env.PEERS.split(',').map((name) => name.trim()) : [...peers.map(([key]) => key), 'temporal-floor'];
const options = {
  warmup: Number(process.env.PEER_WARMUP ?? 5),
  sequential: Number(process.env.PEER_SEQUENTIAL ?? 50),
  concurrency: [10, 64],
  runs: Number(process.env.PEER_RUNS ?? 200),
  runDeadlineMs: 60_000,
};

await ensurePeersInstalled(log);
const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
const databases: string[] = [];
const database = async (purpose: string) => {
  const name = `peers_${purpose}_${randomBytes(3).toString('hex')}`;
  await admin.unsafe(`create database "${name}"`);
  databases.push(name);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};
const model = await startInstantModelServer();
const results: Array<PeerFigures | { name: string; error: string }> = [];
let floor: TemporalFloor | null = null;
try {
  if (chosen.includes('temporal-floor')) {
    log('\n# Temporal floor (one workflow, one model-call activity, eager start)');
    floor = await measureTemporalFloor(model, { sequential: options.sequential, runs: Math.max(options.runs, 320), concurrency: 64 });
    log(
      `p50 ${floor.oneTurnP50.toFixed(1)} ms; ${floor.perSecond.toFixed(1)} runs/s at 64; Temporal server ${floor.serverCpuMsPerRun.toFixed(1)} ms CPU per run, with the worker ${floor.totalCpuMsPerRun.toFixed(1)} ms`,
    );
  }
  for (const [key, make] of peers) {
    if (!chosen.includes(key)) continue;
    const peer = await make(model, database);
    log(`\n# ${peer.name}`);
    try {
      results.push(await measurePeer(peer, options, log));
    } catch (error) {
      const message = (error as Error).message.slice(0, 1500);
      log(`${peer.name}: could not be measured: ${message}`);
      results.push({ name: peer.name, error: message });
    }
  }
} finally {
  await model.close();
  for (const name of databases) await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end({ timeout: 5 });
}

const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
const report = renderPeerTable(results, { machine, options, floor });
console.log(`\n${report}`);
mkdirSync(path.join(projectRoot, 'bench', 'results'), { recursive: true });
writeFileSync(path.join(projectRoot, 'bench', 'results', 'peers.md'), report);
console.log('written to bench/results/peers.md');
process.exit(0);
