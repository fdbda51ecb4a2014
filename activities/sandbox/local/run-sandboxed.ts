import { spawn, type StdioPipe } from 'node:child_process';
import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import { captureCapped } from './capped-output.ts';
import type { SandboxUser } from './workspace.ts';

/**
 * Runs one bubblewrap invocation to completion: feeds stdin and the generated files (fds 3, 4,
 * …), captures capped output, and enforces the wall clock. bwrap leads its own process group;
 * killing it makes the sandbox's PID 1 die (--die-with-parent), which tears down the whole PID
 * namespace, background processes included.
 */
export type RawResult = {
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  durationMs: number;
};

export function runSandboxed(spec: {
  bwrapPath: string;
  args: string[];
  dataFiles: Buffer[];
  user: SandboxUser;
  stdin: Uint8Array | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}): Promise<RawResult> {
  const started = performance.now();
  const switchUser = process.getuid?.() !== spec.user.uid;
  const child = spawn(spec.bwrapPath, spec.args, {
    stdio: ['pipe', 'pipe', 'pipe', ...spec.dataFiles.map((): StdioPipe => 'pipe')],
    detached: true,
    cwd: '/',
    env: { PATH: '/usr/bin:/bin' },
    ...(switchUser ? { uid: spec.user.uid, gid: spec.user.gid } : {}),
  });
  const stdout = captureCapped(child.stdout!, spec.maxOutputBytes);
  const stderr = captureCapped(child.stderr!, spec.maxOutputBytes);
  spec.dataFiles.forEach((data, index) => {
    const pipe = child.stdio[3 + index] as Writable;
    pipe.on('error', () => {});
    pipe.end(data);
  });
  child.stdin!.on('error', () => {});
  child.stdin!.end(spec.stdin ? Buffer.from(spec.stdin) : undefined);

  let timedOut = false;
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, spec.timeoutMs);
  spec.signal?.addEventListener('abort', killGroup, { once: true });
  if (spec.signal?.aborted) killGroup();

  return new Promise<RawResult>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new InternalConfigurationError(`bubblewrap could not be started (${error.code ?? 'error'})`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', killGroup);
      resolve({
        exitCode: code,
        signal: signal ?? signalFromStatus(code),
        stdout: stdout.bytes(),
        stderr: stderr.bytes(),
        stdoutTruncated: stdout.truncated(),
        stderrTruncated: stderr.truncated(),
        timedOut,
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}

/**
 * bwrap reports a command killed by signal n as exit status 128 + n, as a shell does; the signal
 * is inferred from that (a program that itself exits 137 reads as SIGKILL).
 */
function signalFromStatus(code: number | null): string | null {
  if (code === null || code <= 128) return null;
  const number = code - 128;
  return Object.entries(constants.signals).find(([, value]) => value === number)?.[0] ?? null;
}
