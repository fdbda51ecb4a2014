import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { EgressGuard } from './egress-guard.ts';
import type { EgressPolicy } from './egress-policy.ts';
import { startEgressProxy, type EgressProxy, type HostLookup } from './egress-proxy.ts';
import { assertSearchable, type SandboxUser } from './workspace.ts';

/**
 * One egress proxy for one sandboxed process tree (an exec, or a sandbox browser), on a socket in
 * a private directory only the sandbox user can enter; the socket is bound into the sandbox.
 */
export type EgressSocket = { socketPath: string; close(): Promise<void> };

export async function openEgressSocket(input: { policy: EgressPolicy; guard: EgressGuard; user: SandboxUser; lookup?: HostLookup }): Promise<EgressSocket> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sbx-'));
  const socketPath = path.join(dir, 'proxy.sock');
  const asRoot = (process.getuid?.() ?? 0) === 0;
  let proxy: EgressProxy | null = null;
  try {
    if (asRoot) await chown(dir, input.user.uid, input.user.gid);
    await chmod(dir, 0o700);
    await assertSearchable(dir, input.user);
    proxy = await startEgressProxy({ socketPath, policy: input.policy, guard: input.guard, ...(input.lookup ? { lookup: input.lookup } : {}) });
    if (asRoot) await chown(socketPath, input.user.uid, input.user.gid);
    await chmod(socketPath, 0o600);
  } catch (error) {
    await proxy?.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const started = proxy;
  return {
    socketPath,
    close: async () => {
      await started.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
