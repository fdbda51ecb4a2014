import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../../temporal/dev-server.ts';

/** A peer's OS process, in its own process group so `kill -9` takes its children too. */
export type PeerProcess = { child: ChildProcess; output(): string; exited: Promise<void> };

export function startProcess(command: string, args: string[], options: { cwd: string; env: Record<string, string | undefined> }): PeerProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output: () => output, exited };
}

/** Resolves once `ready()` is true; fails with the process's output when it exits or times out. */
export async function waitUntil(peer: PeerProcess, what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (
      await Promise.resolve()
        .then(ready)
        .catch(() => false)
    )
      return;
    if (peer.child.exitCode !== null || peer.child.signalCode !== null)
      throw new Error(`${what} exited (${peer.child.exitCode ?? peer.child.signalCode}):\n${peer.output().slice(-4000)}`);
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms:\n${peer.output().slice(-4000)}`);
    await delay(100);
  }
}

export async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status < 500;
  } catch {
    return false;
  }
}

/** `kill -9` of the process group; resolves when the leader is gone. */
export async function killHard(peer: PeerProcess): Promise<void> {
  try {
    process.kill(-peer.child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
  await peer.exited;
}

/** SIGTERM to the group, then SIGKILL after `graceMs`. */
export async function stopProcess(peer: PeerProcess, graceMs = 10_000): Promise<void> {
  if (peer.child.exitCode !== null || peer.child.signalCode !== null) return;
  try {
    process.kill(-peer.child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => void killHard(peer), graceMs);
  await peer.exited;
  clearTimeout(timer);
}

/** A free port on 127.0.0.1, where every peer listens. */
export const freeLocalPort = () => freePort('127.0.0.1');

type ProcInfo = { pid: number; pgrp: number; cmdline: string; peakRssKb: number; cpuSeconds: number };

function readProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const peak = /^VmHWM:\s+(\d+) kB/m.exec(status);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      // utime and stime, in clock ticks (100 per second on Linux)
      const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
      out.push({ pid: Number(entry), pgrp: Number(fields[2]), cmdline, peakRssKb: peak ? Number(peak[1]) : 0, cpuSeconds });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** The processes a runtime runs on: its process groups, servers found by command line, PostgreSQL. */
export type ProcessSet = { groups: number[]; markers?: string[]; postgres?: boolean };

function member(set: ProcessSet, p: ProcInfo): boolean {
  return (
    set.groups.includes(p.pgrp) ||
    (set.markers ?? []).some((marker) => p.cmdline.includes(marker)) ||
    (set.postgres === true && p.cmdline.startsWith('postgres'))
  );
}

/**
 * Peak resident memory (MiB, the sum of each process's VmHWM) of a runtime's own processes
 * (PostgreSQL, shared by several runtimes, is left out).
 */
export function peakRssMiB(set: ProcessSet): number {
  return (
    readProcesses()
      .filter((p) => member({ ...set, postgres: false }, p))
      .reduce((sum, p) => sum + p.peakRssKb, 0) / 1024
  );
}

/** CPU seconds used so far by a runtime's processes, PostgreSQL's backends included when it uses them. */
export function cpuSeconds(set: ProcessSet): number {
  return readProcesses()
    .filter((p) => member(set, p))
    .reduce((sum, p) => sum + p.cpuSeconds, 0);
}

/** The same CPU seconds split by kind of process: PostgreSQL, the Temporal server, and the rest (Node). */
export function cpuSecondsByKind(set: ProcessSet): Record<'postgres' | 'temporal' | 'node', number> {
  const split = { postgres: 0, temporal: 0, node: 0 };
  for (const p of readProcesses()) {
    if (!member(set, p)) continue;
    const kind = p.cmdline.startsWith('postgres') ? 'postgres' : /(^|\/)temporal /.test(p.cmdline) ? 'temporal' : 'node';
    split[kind] += p.cpuSeconds;
  }
  return split;
}

/** SIGKILL every process whose command line contains `marker` (a detached server left behind). */
export function killByMarker(marker: string): void {
  for (const p of readProcesses()) {
    if (p.pid !== process.pid && p.cmdline.includes(marker)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}
