import { describe, expect, it } from 'vitest';
import { createLogger } from '../config/logger.ts';
import { ensureSandboxPackages, installMissingPackages, SANDBOX_PACKAGES, systemPackageHost, type PackageHost } from './system-packages.ts';

/** A machine with the given binaries whose apt-get installs (or fails) as told. */
function host(input: { present: string[]; isRoot: boolean; aptGet?: boolean; install?: 'works' | 'needs_update' | 'fails' }) {
  const files = new Set([...input.present, ...(input.aptGet === false ? [] : ['/usr/bin/apt-get'])]);
  const commands: string[] = [];
  let updated = false;
  const machine: PackageHost = {
    exists: (path) => files.has(path),
    isRoot: input.isRoot,
    async run(command, args) {
      commands.push(`${command} ${args.join(' ')}`);
      if (args[0] === 'update') {
        updated = true;
        return;
      }
      if (input.install === 'fails' || (input.install === 'needs_update' && !updated)) throw new Error('E: Unable to locate package');
      for (const name of args.slice(4)) files.add(SANDBOX_PACKAGES[name]!);
    },
  };
  return { machine, commands };
}

function logged() {
  const lines: Array<{ level: string; msg: string }> = [];
  return { lines, logger: createLogger({ level: 'info', sink: (line) => lines.push(JSON.parse(line)) }) };
}

describe('sandbox packages on start', () => {
  it('does nothing when bubblewrap and socat are there', async () => {
    const { machine, commands } = host({ present: ['/usr/bin/bwrap', '/usr/bin/socat'], isRoot: true });
    const { lines, logger } = logged();
    expect(await ensureSandboxPackages(logger, machine)).toEqual({ kind: 'present' });
    expect(commands).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('installs the missing ones as root, updating the package lists only when the install needs it', async () => {
    const { machine, commands } = host({ present: ['/usr/bin/bwrap'], isRoot: true, install: 'needs_update' });
    const { lines, logger } = logged();
    expect(await ensureSandboxPackages(logger, machine)).toEqual({ kind: 'installed', packages: ['socat'] });
    expect(commands).toEqual([
      'apt-get install -y -qq --no-install-recommends socat',
      'apt-get update -qq',
      'apt-get install -y -qq --no-install-recommends socat',
    ]);
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ['info', 'installing the sandbox packages with apt-get (first start only)'],
      ['info', 'sandbox packages installed'],
    ]);
    const direct = host({ present: [], isRoot: true, install: 'works' });
    expect(await installMissingPackages(SANDBOX_PACKAGES, direct.machine)).toEqual({ kind: 'installed', packages: ['bubblewrap', 'socat'] });
    expect(direct.commands).toEqual(['apt-get install -y -qq --no-install-recommends bubblewrap socat']);
  });

  it('warns with the exact command and keeps going when it cannot install', async () => {
    for (const [machine, reason] of [
      [host({ present: [], isRoot: false }).machine, 'this process is not root'],
      [host({ present: [], isRoot: true, aptGet: false }).machine, 'this machine has no apt-get'],
      [host({ present: [], isRoot: true, install: 'fails' }).machine, 'apt-get failed'],
    ] as const) {
      const { lines, logger } = logged();
      const outcome = await ensureSandboxPackages(logger, machine);
      expect(outcome).toMatchObject({ kind: 'not_installed', packages: ['bubblewrap', 'socat'], command: 'sudo apt-get install -y bubblewrap socat' });
      const warning = lines.find((line) => line.level === 'warn')!;
      expect(warning.msg).toBe(`sandboxed runs will fail until bubblewrap and socat are installed (${reason}); run: sudo apt-get install -y bubblewrap socat`);
    }
  });

  it('finds both on this machine (the test setup installs them)', async () => {
    expect(await installMissingPackages(SANDBOX_PACKAGES, systemPackageHost)).toEqual({ kind: 'present' });
  });
});
