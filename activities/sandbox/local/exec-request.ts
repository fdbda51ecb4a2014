import * as path from 'node:path';
import { ValidationError } from '../../../domain/errors.ts';
import type { LimitOverrides } from './limits.ts';
import type { SnapshotForExec } from './snapshots.ts';

/** What one sandboxed command is asked to do, and what it did. */
export type SandboxNetwork = { mode: 'none' } | { mode: 'restricted'; allowedDomains: string[]; allowedCidrs: string[] };

export type ExecRequest = {
  sandboxId: string;
  snapshot: SnapshotForExec;
  /** Run directly, no shell: e.g. ['bash', '-lc', script]. */
  argv: string[];
  /** Bytes (or UTF-8 text) on the command's stdin; empty when absent. */
  stdin?: string | Uint8Array;
  network: SandboxNetwork;
  timeoutMs: number;
  /** Cap per stream (stdout and stderr each); default 64 KiB. */
  maxOutputBytes?: number;
  /** Relative to /workspace; must exist. */
  cwd?: string;
  /** `base64` returns stdout's exact bytes (for reading binary files); stderr is always UTF-8. */
  stdoutEncoding?: 'utf8' | 'base64';
  /** Tighter limits than the snapshot's for this command only. */
  limits?: LimitOverrides;
  /** Memory store directories prepared with `writeMemoryMount`, bound at `/mnt/memory/<name>` for this command. */
  memoryMounts?: Array<{ name: string; readOnly: boolean }>;
};

export type ExecResult = {
  /** 128 + n when the command died of signal n inside the sandbox; null when killed from outside. */
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The workspace's size in MiB when the command left it (nearly) full; null otherwise. */
  workspaceFullMb: number | null;
};

export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
const MAX_STDIN_BYTES = 64 * 1024 * 1024;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

const invalid = (message: string, where: string) => new ValidationError(message, { path: where });

/** Checks the parts the types cannot; returns the command's working directory inside. */
export function checkExecRequest(request: ExecRequest): { cwd: string; maxOutputBytes: number } {
  const { argv, timeoutMs, stdin, network } = request;
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((arg) => typeof arg === 'string' && !arg.includes('\0')) || argv[0] === '') {
    throw invalid('argv must be a non-empty list of strings without NUL bytes', 'argv');
  }
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
    throw invalid('timeoutMs must be an integer from 1 to 86400000', 'timeoutMs');
  const maxOutputBytes = request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 1 || maxOutputBytes > MAX_OUTPUT_BYTES) {
    throw invalid(`maxOutputBytes must be an integer from 1 to ${MAX_OUTPUT_BYTES}`, 'maxOutputBytes');
  }
  if (stdin !== undefined && !(typeof stdin === 'string' || stdin instanceof Uint8Array)) throw invalid('stdin must be a string or bytes', 'stdin');
  if (stdin !== undefined && Buffer.byteLength(stdin) > MAX_STDIN_BYTES) throw invalid('stdin must be at most 64 MiB', 'stdin');
  if (request.stdoutEncoding !== undefined && request.stdoutEncoding !== 'utf8' && request.stdoutEncoding !== 'base64') {
    throw invalid('stdoutEncoding must be utf8 or base64', 'stdoutEncoding');
  }
  if (network?.mode !== 'none' && network?.mode !== 'restricted') throw invalid('network.mode must be none or restricted', 'network.mode');
  return { cwd: insideCwd(request.cwd), maxOutputBytes };
}

function insideCwd(cwd: string | undefined): string {
  if (cwd === undefined || cwd === '' || cwd === '.') return '/workspace';
  if (typeof cwd !== 'string' || cwd.includes('\0') || path.posix.isAbsolute(cwd)) throw invalid('cwd must be a path relative to /workspace', 'cwd');
  const normal = path.posix.normalize(cwd);
  if (normal === '..' || normal.startsWith('../')) throw invalid('cwd must stay inside /workspace', 'cwd');
  return path.posix.join('/workspace', normal);
}
