import { ValidationError } from '../../../domain/errors.ts';
import type { SnapshotForExec } from './snapshots.ts';

/**
 * What a snapshot's `resource` buys a command, as rlimits and tmpfs sizes. Without cgroups
 * (unavailable to an unprivileged worker) this is what the kernel can enforce per process:
 *
 * - `cpu` (cores) is informational; the per-process CPU-time limit is `cpu` × the wall timeout.
 * - `memoryMb` sets RLIMIT_AS, which caps *virtual* address space, not resident memory. V8 and
 *   Chromium reserve far more than they touch (Node needs ~10 GiB, headless Chromium ~96 GiB), so the cap
 *   is `memoryMb` × ADDRESS_SPACE_MULTIPLIER with a floor the driver sets (16 GiB by default;
 *   raise it to 131072 MiB for a browser snapshot). It stops runaway allocation, not a slow leak.
 * - `diskMb` sizes the private `/tmp` tmpfs and RLIMIT_FSIZE (the largest single file a command
 *   may write, in the workspace too); the workspace's total size is capped by its own file
 *   system of `diskMb` where the worker can mount one (workspace-quota.ts), elsewhere by measuring
 *   it around and during each command (workspace-usage.ts). tmpfs pages count
 *   against host memory.
 * - RLIMIT_NPROC counts the processes and threads of the sandbox's own user namespace, so one
 *   sandbox's fork bomb does not starve another.
 */
export type SandboxLimits = {
  cpuSeconds: number;
  addressSpaceBytes: number;
  processes: number;
  fileSizeBytes: number;
  openFiles: number;
  tmpBytes: number;
  shmBytes: number;
};

/** Per-request tightening; a request can lower a limit, never raise one. */
export type LimitOverrides = Partial<Pick<SandboxLimits, 'cpuSeconds' | 'processes' | 'fileSizeBytes' | 'addressSpaceBytes'>>;

const MIB = 1024 * 1024;
const ADDRESS_SPACE_MULTIPLIER = 4;
export const DEFAULT_ADDRESS_SPACE_FLOOR_MB = 16 * 1024;
/** The floor for the sandbox browser, whatever the driver's: headless Chromium reserves ~96 GiB. */
export const BROWSER_ADDRESS_SPACE_FLOOR_MB = 128 * 1024;
// Chromium alone runs a few hundred threads; each counts as a process here.
const PROCESS_LIMIT = 512;
const OPEN_FILES = 4096;
const SHM_CAP_MB = 256;

export function limitsForSnapshot(
  snapshot: SnapshotForExec,
  timeoutMs: number,
  options: { addressSpaceFloorMb: number },
  overrides: LimitOverrides = {},
): SandboxLimits {
  const { cpu, memoryMb, diskMb } = snapshot.resource;
  const base: SandboxLimits = {
    cpuSeconds: Math.max(1, Math.ceil((timeoutMs / 1000) * Math.max(1, cpu))),
    addressSpaceBytes: Math.max(memoryMb * ADDRESS_SPACE_MULTIPLIER, options.addressSpaceFloorMb) * MIB,
    processes: PROCESS_LIMIT,
    fileSizeBytes: diskMb * MIB,
    openFiles: OPEN_FILES,
    tmpBytes: diskMb * MIB,
    shmBytes: Math.min(diskMb, SHM_CAP_MB) * MIB,
  };
  const lower = (key: keyof LimitOverrides) => {
    const value = overrides[key];
    if (value === undefined) return;
    if (!Number.isSafeInteger(value) || value < 1) throw new ValidationError(`limits.${key} must be a positive integer`, { path: `limits.${key}` });
    base[key] = Math.min(base[key], value);
  };
  lower('cpuSeconds');
  lower('processes');
  lower('fileSizeBytes');
  lower('addressSpaceBytes');
  return base;
}

/**
 * `prlimit` arguments for the first process inside the sandbox. Set there (not on bwrap) on
 * purpose: the user namespace then exists, so RLIMIT_NPROC counts only this sandbox's processes.
 * The CPU hard limit sits one second above the soft one so a process first gets SIGXCPU.
 */
export function prlimitArgs(limits: SandboxLimits): string[] {
  return [
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--as=${limits.addressSpaceBytes}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
  ];
}
