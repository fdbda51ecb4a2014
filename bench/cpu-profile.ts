/**
 * Diagnostic, not part of `npm run bench`: where the CPU of a one-turn run goes. Runs `npm start`
 * (or, with PROFILE_EMBEDDED=1, on embedded PGlite) under `--cpu-prof`, drives PROFILE_RUNS
 * one-turn runs (default 320) at concurrency 64 over HTTP the way `npm run bench:peers` does,
 * prints CPU ms per run by process kind (our Node process, the Temporal dev server, PostgreSQL),
 * then the top of our process's profile by self time: by package or project folder, and by
 * function. The `.cpuprofile` files stay in PROFILE_DIR (default a temporary directory) for
 * Chrome DevTools.
 *
 *   node_modules/.bin/node bench/cpu-profile.ts
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startInstantModelServer } from './instant-model-server.ts';
import { measurePeer } from './peers/peer.ts';
import { cpuSecondsByKind } from './peers/processes.ts';
import { servicePeer } from './peers/service.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const runs = Number(process.env.PROFILE_RUNS ?? 320);
const profileDir = process.env.PROFILE_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'svc-cpu-profile-'));
const embedded = process.env.PROFILE_EMBEDDED === '1';

const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
const name = `profile_${randomBytes(3).toString('hex')}`;
if (!embedded) await admin.unsafe(`create database "${name}"`);
const url = new URL(ADMIN_URL);
url.pathname = `/${name}`;
const model = await startInstantModelServer();
const peer = servicePeer({
  name: 'This service',
  model,
  ...(embedded ? {} : { databaseUrl: url.toString() }),
  // Only our process (and its workflow threads) profiles: the Temporal server is not Node.
  env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` },
});
// measurePeer starts and stops the peer; CPU by kind is read around the load, from inside it.
const split: Record<string, number> = {};
const originalOneTurn = peer.oneTurn.bind(peer);
let began: ReturnType<typeof cpuSecondsByKind> | null = null;
let counted = 0;
peer.oneTurn = async (i: number) => {
  // The warm-up is 5 runs; the load starts at the sixth.
  if (i === 5) began = cpuSecondsByKind(peer.processes());
  await originalOneTurn(i);
  counted = i + 1;
  if (counted === 5 + runs) {
    const ended = cpuSecondsByKind(peer.processes());
    for (const kind of Object.keys(ended) as Array<keyof typeof ended>) split[kind] = ((ended[kind] - began![kind]) * 1000) / runs;
  }
};
try {
  const figures = await measurePeer(
    peer,
    { warmup: 5, sequential: 0, concurrency: [64], runs, runDeadlineMs: 60_000, twoTurn: false, crashCheck: false },
    (line) => console.log(line),
  );
  console.log(`runs/s at 64: ${figures.throughput[64]!.perSecond.toFixed(1)}; CPU ms per run: ${figures.throughput[64]!.cpuMsPerRun.toFixed(1)}`);
  console.log(
    `  by process kind (the last runs may still be settling when the load ends): ${Object.entries(split)
      .map(([kind, ms]) => `${kind} ${ms.toFixed(1)}`)
      .join(', ')}`,
  );
} finally {
  await model.close();
  if (!embedded) await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end({ timeout: 5 });
}

summarize(profileDir);
console.log(`profiles: ${profileDir}`);

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

function summarize(dir: string) {
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    profile.samples.forEach((id, index) => {
      const node = nodes.get(id)!;
      const ms = (profile.timeDeltas[index] ?? 0) / 1000;
      const { functionName, url: source, lineNumber } = node.callFrame;
      if (functionName === '(idle)' || functionName === '(program)') return;
      total += ms;
      const place = placeOf(source, functionName);
      byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
      const key = `${functionName || '(anonymous)'} ${place}:${lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
    });
  }
  const top = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, ms]) => `  ${((ms / total) * 100).toFixed(1).padStart(5)} %  ${key}`)
      .join('\n');
  console.log(`\nOur process, busy time ${(total / 1000).toFixed(1)} s (idle and unattributed excluded), by place:\n${top(byPlace, 25)}`);
  console.log(`\nby function (self time):\n${top(byFunction, 40)}`);
}

function placeOf(source: string, functionName: string): string {
  if (!source) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (modules) return modules[1]!;
  if (source.startsWith('node:')) return source;
  const file = source.replace(/^file:\/\//, '');
  if (file.startsWith(`${projectRoot}/`))
    return file
      .slice(projectRoot.length + 1)
      .split('/')
      .slice(0, 2)
      .join('/');
  return source.slice(-60);
}
