import { BUILT_IN_SNAPSHOT } from '../../../domain/sandbox/snapshot-registry.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBwrapArgs } from './bwrap-args.ts';
import { clampToHard, readHardLimits } from './host-limits.ts';
import { limitsForSnapshot } from './limits.ts';
import { rootfsMounts, type RootfsMounts } from './rootfs.ts';

/** The command line as data: what is mounted, in which order, with which limits. */
const MIB = 1024 * 1024;
const limits = limitsForSnapshot(BUILT_IN_SNAPSHOT, 30_000, { addressSpaceFloorMb: 16384 });

// [source, destination] of every bind-type mount.
function binds(args: string[]): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  args.forEach((arg, index) => {
    if (/^--(ro-)?bind(-try)?$/.test(arg)) found.push([args[index + 1]!, args[index + 2]!]);
  });
  return found;
}

describe('bwrap arguments', () => {
  let rootfs: RootfsMounts;
  beforeAll(async () => {
    rootfs = await rootfsMounts(BUILT_IN_SNAPSHOT);
  });

  it('unshares everything, clears the environment and freezes the root after the last mount', () => {
    const { args } = buildBwrapArgs({ rootfs, workspace: '/data/ws', cwd: '/workspace', limits, argv: ['true'] });
    const end = args.indexOf('--');
    expect(args.slice(0, 5)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session']);
    expect(args.indexOf('--clearenv')).toBeLessThan(args.indexOf('--setenv'));
    expect(args).not.toContain('--share-net');
    const lastMount = Math.max(...args.slice(0, end).flatMap((arg, index) => (/^--(ro-)?bind|^--tmpfs|^--proc|^--dev$/.test(arg) ? [index] : [])));
    expect(args.lastIndexOf('--remount-ro')).toBeGreaterThan(lastMount);
    expect(args.slice(end + 1, end + 2)).toEqual(['prlimit']);
    expect(args.at(-1)).toBe('true');
  });

  it('binds the host /usr and a short /etc allowlist read-only, and only the workspace writable', () => {
    const { args } = buildBwrapArgs({ rootfs, workspace: '/data/ws', cwd: '/workspace', limits, argv: ['true'] });
    const writable = args.flatMap((arg, index) => (arg === '--bind' ? [args[index + 2]] : []));
    expect(writable).toEqual(['/workspace']);
    for (const [source] of binds(args)) {
      expect(source === '/usr' || source === '/data/ws' || source.startsWith('/etc/')).toBe(true);
      expect(['/', '/etc', '/etc/shadow', '/root', '/home', '/proc', '/work']).not.toContain(source);
    }
    expect(binds(args).some(([source]) => /shadow|passwd|group|sudoers|ssh/.test(source))).toBe(false);
  });

  it('adds the proxy socket, the relay and proxy variables only for restricted network', () => {
    const none = buildBwrapArgs({ rootfs, workspace: '/data/ws', cwd: '/workspace', limits, argv: ['true'] }).args;
    const restricted = buildBwrapArgs({ rootfs, workspace: '/data/ws', cwd: '/workspace', limits, argv: ['true'], proxySocket: '/tmp/sbx-1/proxy.sock' }).args;
    expect(none.join(' ')).not.toMatch(/PROXY|socat/i);
    expect(binds(restricted)).toContainEqual(['/tmp/sbx-1/proxy.sock', '/run/proxy.sock']);
    expect(restricted.join(' ')).toContain('--setenv HTTPS_PROXY http://127.0.0.1:3128');
    expect(restricted.join(' ')).toMatch(/socat TCP-LISTEN:3128,bind=127\.0\.0\.1/);
  });

  it('for the browser: no workspace, generated files on later descriptors, the CDP pipe let through', () => {
    const { args, dataFiles } = buildBwrapArgs({ rootfs, cwd: '/tmp', limits, argv: ['/usr/lib/chromium/chromium'], firstDataFd: 5, passFds: [3, 4] });
    expect(args.join(' ')).not.toContain('/workspace');
    expect(args.join(' ')).toContain('--setenv HOME /tmp');
    expect(args.join(' ')).toContain('--ro-bind-data 5 /etc/passwd');
    expect(dataFiles).toHaveLength(3);
    expect(args.at(-3)).toMatch(/case \$fd in 0\|1\|2\|3\|4\) ;;/);
    expect(() => buildBwrapArgs({ rootfs, cwd: '/tmp', limits, argv: ['true'], passFds: [3] })).toThrow(/distinct/);
  });
});

describe('limits from a snapshot', () => {
  it('maps resources to rlimits and tmpfs sizes, and lets a request only tighten them', () => {
    expect(limits).toEqual({
      cpuSeconds: 30,
      addressSpaceBytes: 16384 * MIB,
      processes: 512,
      fileSizeBytes: 1024 * MIB,
      openFiles: 4096,
      tmpBytes: 1024 * MIB,
      shmBytes: 256 * MIB,
    });
    const big = { ...BUILT_IN_SNAPSHOT, resource: { cpu: 2, memoryMb: 8192, diskMb: 4096 } };
    expect(limitsForSnapshot(big, 10_000, { addressSpaceFloorMb: 16384 })).toMatchObject({
      cpuSeconds: 20,
      addressSpaceBytes: 32768 * MIB,
      shmBytes: 256 * MIB,
    });
    const tightened = limitsForSnapshot(BUILT_IN_SNAPSHOT, 30_000, { addressSpaceFloorMb: 16384 }, { cpuSeconds: 2, processes: 10_000 });
    expect(tightened).toMatchObject({ cpuSeconds: 2, processes: 512 });
  });
});

describe('host hard limits', () => {
  it('clamps limits to what the worker itself may grant', () => {
    const hard = readHardLimits(
      [
        'Limit                     Soft Limit           Hard Limit           Units',
        'Max cpu time              unlimited            unlimited            seconds',
        'Max processes             96365                300                  processes',
        'Max open files            1024                 1024                 files',
        'Max address space         unlimited            unlimited            bytes',
      ].join('\n'),
    );
    expect(hard).toEqual({ processes: 300, openFiles: 1024 });
    expect(clampToHard(limits, hard)).toMatchObject({ processes: 300, openFiles: 1024, cpuSeconds: 30 });
    expect(clampToHard(limits, { cpuSeconds: 10 }).cpuSeconds).toBe(9);
  });
});
