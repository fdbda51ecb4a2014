import type { Snapshot } from '../../domain/sandbox/snapshot-registry.ts';
import type { RunSandbox } from '../../services/runtime/sandboxes/index.ts';
import type { ExecRequest, ExecResult, LocalSandboxDriver, SandboxNetwork } from './local/driver.ts';

/** The snapshot a session's sandbox boots; it must be registered on this worker too. */
export function snapshotOf(snapshots: ReadonlyMap<string, Snapshot>, target: RunSandbox): Snapshot {
  const snapshot = snapshots.get(target.sandbox.snapshotId);
  if (!snapshot) throw new Error(`snapshot ${target.sandbox.snapshotId} is not registered on this worker`);
  return snapshot;
}

/** The pinned network mode with the connection's current allowlist (read at run time, never pinned). */
export function networkOf(target: RunSandbox): SandboxNetwork {
  return target.sandbox.network === 'restricted' ? { mode: 'restricted', ...target.egress } : { mode: 'none' };
}

export type TargetExecOptions = Pick<ExecRequest, 'stdin' | 'timeoutMs' | 'maxOutputBytes' | 'stdoutEncoding' | 'memoryMounts'>;

/** One command in the session's sandbox under its snapshot and network policy. */
export function execInTarget(
  deps: { driver: LocalSandboxDriver; snapshots: ReadonlyMap<string, Snapshot> },
  target: RunSandbox,
  argv: string[],
  options: TargetExecOptions,
): Promise<ExecResult> {
  return deps.driver.exec({ sandboxId: target.sandbox.id, snapshot: snapshotOf(deps.snapshots, target), argv, network: networkOf(target), ...options });
}
