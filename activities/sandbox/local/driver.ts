import * as path from 'node:path';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import { buildBwrapArgs } from './bwrap-args.ts';
import { PUBLIC_ONLY, type EgressGuard } from './egress-guard.ts';
import { compileEgressPolicy } from './egress-policy.ts';
import type { HostLookup } from './egress-proxy.ts';
import { openEgressSocket } from './egress-socket.ts';
import { markFailed, SpanKind, withSpan } from '../../../adapters/tracing.ts';
import { checkExecRequest, type ExecRequest, type ExecResult } from './exec-request.ts';
import { clampToHard, readHardLimits } from './host-limits.ts';
import { DEFAULT_ADDRESS_SPACE_FLOOR_MB, limitsForSnapshot } from './limits.ts';
import { rootfsMounts } from './rootfs.ts';
import { forgetMounts, memoryMountDir, readMemoryMount, syncMemoryMount, type MountedFile, type MountMemory, type WantedFile } from './memory-mount.ts';
import { runSandboxed } from './run-sandboxed.ts';
import { assertRunnableSnapshot } from './snapshots.ts';
import { assertSandboxId, ensureWorkspaceDir, removeSandboxDir, resolveSandboxUser, workspaceDir, type SandboxUser } from './workspace.ts';
import { FULL_BELOW_BYTES, isWorkspaceFull, unmountWorkspace } from './workspace-quota.ts';
import { guardWorkspaceUsage, type UsageGuard } from './workspace-usage.ts';

/**
 * The local sandbox driver: each sandbox is a workspace directory on this host, and each command
 * runs in a fresh bubblewrap sandbox over a read-only snapshot root (see README.md).
 */
export type { ExecRequest, ExecResult, SandboxNetwork } from './exec-request.ts';
export type { EgressGuard } from './egress-guard.ts';
export type { HostLookup } from './egress-proxy.ts';
export type { LimitOverrides } from './limits.ts';
export type { SandboxUser } from './workspace.ts';
export type { MountedFile, WantedFile } from './memory-mount.ts';
export { MountReadError } from './memory-mount.ts';

export type LocalSandboxDriverOptions = {
  dataDir: string;
  /** Host uid/gid a root worker runs sandboxes as (default 65534, nobody); never 0. */
  sandboxUser?: SandboxUser;
  bwrapPath?: string;
  /** RLIMIT_AS floor in MiB (default 16384); a browser snapshot needs about 131072. */
  addressSpaceFloorMb?: number;
  /**
   * Give each workspace a file system of `diskMb` where the worker can (root, loop devices;
   * default true). Otherwise, or when false, the workspace is a plain directory whose size the
   * driver measures around and during each command (workspace-usage.ts).
   */
  sizedWorkspaces?: boolean;
  /** DNS for the egress proxy; the system resolver by default. */
  lookup?: HostLookup;
  /** The server's address policy over `restricted` egress; public addresses only by default. */
  egressGuard?: EgressGuard;
};

export type LocalSandboxDriver = {
  /**
   * Creates the workspace (0700) if needed, a file system of `diskMb` where the host allows
   * (workspace-quota.ts); returns its host path.
   */
  ensureWorkspace(sandboxId: string, diskMb?: number): Promise<string>;
  /** Runs one command; the workspace is created on first use. */
  exec(request: ExecRequest): Promise<ExecResult>;
  /**
   * Brings a memory store's mount directory (`memoryMounts` binds it) in line with the store's
   * files (path and hash); `load` gives the bytes of those it must write.
   */
  syncMemoryMount(
    sandboxId: string,
    diskMb: number | undefined,
    name: string,
    wanted: readonly WantedFile[],
    load: (paths: string[]) => Promise<Map<string, Buffer>>,
  ): Promise<void>;
  /** The regular files a command left in that directory: changed ones with their bytes. */
  readMemoryMount(sandboxId: string, diskMb: number | undefined, name: string): Promise<MountedFile[]>;
  removeWorkspace(sandboxId: string): Promise<void>;
  /** Kills running commands, stops their egress proxies and unmounts the workspaces it mounted. */
  close(): Promise<void>;
};

const MIB = 1024 * 1024;

export function createLocalSandboxDriver(options: LocalSandboxDriverOptions): LocalSandboxDriver {
  const dataDir = path.resolve(options.dataDir);
  const user = resolveSandboxUser(options.sandboxUser);
  const bwrapPath = options.bwrapPath ?? '/usr/bin/bwrap';
  const addressSpaceFloorMb = options.addressSpaceFloorMb ?? DEFAULT_ADDRESS_SPACE_FLOOR_MB;
  const hardLimits = readHardLimits();
  const running = new Map<Promise<unknown>, AbortController>();
  const mounted = new Set<string>();
  // What this driver last left in each memory mount (memory-mount.ts): lost with the process, when
  // the next command writes its mounts afresh.
  const mountMemory: MountMemory = new Map();
  let closed = false;

  // One set-up at a time per sandbox, so two commands never mount its image twice.
  const settingUp = new Map<string, Promise<string>>();
  const ensure = (sandboxId: string, diskMb: number | undefined): Promise<string> => {
    const previous = settingUp.get(sandboxId) ?? Promise.resolve('');
    const next = previous
      .catch(() => '')
      .then(async () => {
        const { workspace, sized } = await ensureWorkspaceDir(dataDir, sandboxId, user, diskMb, options.sizedWorkspaces !== false);
        if (sized) mounted.add(workspace);
        return workspace;
      });
    settingUp.set(sandboxId, next);
    void next.finally(() => settingUp.get(sandboxId) === next && settingUp.delete(sandboxId)).catch(() => {});
    return next;
  };

  // A workspace in which this driver keeps a mount is set up (removeWorkspace and close forget
  // the mounts): the mount's steps need not set it up again.
  const mountWorkspace = async (sandboxId: string, diskMb: number | undefined, name: string): Promise<string> => {
    const workspace = workspaceDir(dataDir, sandboxId);
    return mountMemory.has(memoryMountDir(workspace, name)) ? workspace : ensure(sandboxId, diskMb);
  };

  async function exec(request: ExecRequest, controller: AbortController): Promise<ExecResult> {
    assertSandboxId(request.sandboxId);
    const { cwd, maxOutputBytes } = checkExecRequest(request);
    assertRunnableSnapshot(request.snapshot);
    const policy = request.network.mode === 'restricted' ? compileEgressPolicy(request.network) : null;
    const limits = clampToHard(limitsForSnapshot(request.snapshot, request.timeoutMs, { addressSpaceFloorMb }, request.limits), hardLimits);
    const { diskMb } = request.snapshot.resource;
    const workspace = await ensure(request.sandboxId, diskMb);
    const rootfs = await rootfsMounts(request.snapshot);

    const egress = policy
      ? await openEgressSocket({ policy, guard: options.egressGuard ?? PUBLIC_ONLY, user, ...(options.lookup ? { lookup: options.lookup } : {}) })
      : null;
    let usage: UsageGuard | null = null;
    try {
      // A plain-directory workspace is measured before, during (stopping the sandbox when it
      // goes over) and after the command, and no file may grow past what is left.
      usage = mounted.has(workspace) ? null : await guardWorkspaceUsage(workspace, diskMb * MIB, FULL_BELOW_BYTES);
      if (usage) limits.fileSizeBytes = Math.min(limits.fileSizeBytes, usage.fileSizeBytes);
      const memoryMounts = (request.memoryMounts ?? []).map((mount) => ({ ...mount, hostPath: memoryMountDir(workspace, mount.name) }));
      const invocation = buildBwrapArgs({
        rootfs,
        workspace,
        cwd,
        limits,
        argv: request.argv,
        ...(egress ? { proxySocket: egress.socketPath } : {}),
        ...(memoryMounts.length > 0 ? { memoryMounts } : {}),
      });
      const raw = await runSandboxed({
        bwrapPath,
        args: invocation.args,
        dataFiles: invocation.dataFiles,
        user,
        stdin: typeof request.stdin === 'string' ? Buffer.from(request.stdin, 'utf8') : request.stdin,
        timeoutMs: request.timeoutMs,
        maxOutputBytes,
        signal: usage ? AbortSignal.any([controller.signal, usage.signal]) : controller.signal,
      });
      const after = usage ? await usage.finish() : null;
      return {
        ...raw,
        stdout: raw.stdout.toString(request.stdoutEncoding ?? 'utf8'),
        stderr: raw.stderr.toString('utf8') + (after?.stopped ? `\nsandbox: stopped: the workspace went over its disk limit of ${diskMb} MiB\n` : ''),
        workspaceFullMb: (after ? after.full : await isWorkspaceFull(workspace)) ? diskMb : null,
      };
    } finally {
      usage?.stop();
      await egress?.close();
    }
  }

  return {
    ensureWorkspace: (sandboxId, diskMb) => ensure(sandboxId, diskMb),
    async syncMemoryMount(sandboxId, diskMb, name, wanted, load) {
      assertSandboxId(sandboxId);
      await syncMemoryMount({ workspace: await mountWorkspace(sandboxId, diskMb, name), name, user, memory: mountMemory }, wanted, load);
    },
    async readMemoryMount(sandboxId, diskMb, name) {
      assertSandboxId(sandboxId);
      return readMemoryMount({ workspace: await mountWorkspace(sandboxId, diskMb, name), name, memory: mountMemory });
    },
    removeWorkspace: async (sandboxId) => {
      forgetMounts(mountMemory, `${workspaceDir(dataDir, sandboxId)}${path.sep}`);
      await removeSandboxDir(dataDir, sandboxId);
      mounted.delete(workspaceDir(dataDir, sandboxId));
    },
    exec(request) {
      if (closed) return Promise.reject(new InternalConfigurationError('The local sandbox driver is closed'));
      const controller = new AbortController();
      // One span per command: its exit code, signal and whether it timed out; never the command,
      // its environment or its output.
      const run = withSpan('sandbox exec', { kind: SpanKind.INTERNAL, attributes: { 'agent_runtime.sandbox.driver': 'local' } }, async (span) => {
        const result = await exec(request, controller);
        span.setAttributes({
          'process.exit.code': result.exitCode ?? -1,
          'agent_runtime.sandbox.timed_out': result.timedOut,
          ...(result.signal ? { 'agent_runtime.sandbox.signal': result.signal } : {}),
        });
        if (result.timedOut) markFailed(span, 'timeout');
        return result;
      });
      running.set(run, controller);
      return run.finally(() => running.delete(run));
    },
    async close() {
      closed = true;
      forgetMounts(mountMemory, '');
      for (const controller of running.values()) controller.abort();
      await Promise.allSettled(running.keys());
      // The images stay: the next command (in this worker or another) mounts them again.
      await Promise.allSettled([...mounted].map((workspace) => unmountWorkspace(workspace)));
      mounted.clear();
    },
  };
}
