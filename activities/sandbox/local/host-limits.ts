import { readFileSync } from 'node:fs';
import type { SandboxLimits } from './limits.ts';

/**
 * The worker's hard rlimits, read once from /proc/self/limits. A sandbox inherits them and cannot
 * raise them (prlimit would fail and so would every command), so asked-for limits are clamped.
 */
export type HardLimits = Partial<Record<'cpuSeconds' | 'addressSpaceBytes' | 'processes' | 'fileSizeBytes' | 'openFiles', number>>;

const ROWS: Record<string, keyof HardLimits> = {
  'Max cpu time': 'cpuSeconds',
  'Max address space': 'addressSpaceBytes',
  'Max processes': 'processes',
  'Max file size': 'fileSizeBytes',
  'Max open files': 'openFiles',
};

export function readHardLimits(text = readFileSync('/proc/self/limits', 'utf8')): HardLimits {
  const hard: HardLimits = {};
  for (const line of text.split('\n')) {
    const name = Object.keys(ROWS).find((row) => line.startsWith(row));
    if (!name) continue;
    const value = line.slice(name.length).trim().split(/\s+/)[1];
    if (value && /^\d+$/.test(value)) hard[ROWS[name]!] = Number(value);
  }
  return hard;
}

export function clampToHard(limits: SandboxLimits, hard: HardLimits): SandboxLimits {
  const clamped = { ...limits };
  for (const [key, max] of Object.entries(hard) as Array<[keyof HardLimits, number]>) clamped[key] = Math.min(clamped[key], max);
  // The CPU hard limit sits one second above the soft one (see prlimitArgs).
  if (hard.cpuSeconds !== undefined) clamped.cpuSeconds = Math.max(1, Math.min(clamped.cpuSeconds, hard.cpuSeconds - 1));
  return clamped;
}
