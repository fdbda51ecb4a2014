import { InternalConfigurationError } from '../../../domain/errors.ts';
import { prlimitArgs, type SandboxLimits } from './limits.ts';
import type { RootfsMounts } from './rootfs.ts';

/**
 * The whole bubblewrap command line for one exec, as data. Every namespace is new (user, PID,
 * IPC, UTS, cgroup, network); nested user namespaces are refused; the root is read-only and only
 * `/workspace`, a size-capped `/tmp`, `/dev/shm` and `/run` are writable. The command gets a
 * cleared environment and runs as uid 1000 ("sandbox") with `/workspace` as home and cwd, under
 * `prlimit` and a short bash preamble from the snapshot (so every root needs bash and prlimit).
 *
 * The sandbox browser (`../browser/`) uses the same command line without a workspace (home is
 * then `/tmp`), with its generated files on later descriptors and Playwright's CDP pipe (fds 3
 * and 4) let through the descriptor sweep.
 */
export const SANDBOX_UID = 1000;
export const PROXY_PORT = 3128;
export const PROXY_SOCKET_INSIDE = '/run/proxy.sock';
/** Where memory stores are mounted inside, and where their files are kept in the workspace on the host. */
export const MEMORY_MOUNT_ROOT = '/mnt/memory';
export const MEMORY_WORKSPACE_DIR = '.svc/memory';
const MEMORY_MOUNT_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const RUN_BYTES = 1024 * 1024;
const PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';
const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`;

export type BwrapInvocation = { args: string[]; dataFiles: Buffer[] };

export function buildBwrapArgs(input: {
  rootfs: RootfsMounts;
  /** Host path bound at /workspace; without one there is no /workspace and home is /tmp. */
  workspace?: string;
  /** Absolute path inside the sandbox, at or under /workspace (or /tmp without a workspace). */
  cwd: string;
  limits: SandboxLimits;
  argv: string[];
  /** Host path of the egress proxy socket; set only for `restricted` network. */
  proxySocket?: string;
  /** Descriptor the first generated file is read from (default 3); the caller supplies them. */
  firstDataFd?: number;
  /** Inherited descriptors, besides stdio, that reach the command; every other one is closed. */
  passFds?: number[];
  /** Host directories bound at `/mnt/memory/<name>` (memory stores, read-only or not). */
  memoryMounts?: Array<{ hostPath: string; name: string; readOnly: boolean }>;
}): BwrapInvocation {
  const firstDataFd = input.firstDataFd ?? 3;
  const passFds = input.passFds ?? [];
  const dataFdEnd = firstDataFd + input.rootfs.generatedEtc.length;
  if (firstDataFd < 3 || passFds.some((fd) => !Number.isSafeInteger(fd) || fd < 3 || (fd >= firstDataFd && fd < dataFdEnd))) {
    throw new InternalConfigurationError('passFds and the generated-file descriptors must be distinct and above stdio');
  }
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--hostname',
    'sandbox',
    '--clearenv',
    '--setenv',
    'PATH',
    PATH,
    '--setenv',
    'HOME',
    input.workspace ? '/workspace' : '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'TERM',
    'dumb',
  ];
  if (input.proxySocket) {
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) args.push('--setenv', name, PROXY_URL);
    args.push('--setenv', 'NO_PROXY', '', '--setenv', 'no_proxy', '');
  }
  args.push(...input.rootfs.args);

  // Generated files arrive on fds 3, 4, … (bwrap reads and closes them before the command runs).
  const dataFiles: Buffer[] = [];
  for (const name of input.rootfs.generatedEtc) {
    args.push('--perms', '0644', '--ro-bind-data', String(firstDataFd + dataFiles.length), `/etc/${name}`);
    dataFiles.push(Buffer.from(ETC_FILES[name] ?? ''));
  }

  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(input.limits.shmBytes),
    '--tmpfs',
    '/dev/shm',
    '--size',
    String(input.limits.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--size',
    String(RUN_BYTES),
    '--tmpfs',
    '/run',
  );
  if (input.proxySocket) args.push('--bind', input.proxySocket, PROXY_SOCKET_INSIDE);
  if (input.workspace) args.push('--bind', input.workspace, '/workspace');
  for (const mount of input.memoryMounts ?? []) {
    if (!MEMORY_MOUNT_NAME.test(mount.name)) throw new InternalConfigurationError(`memory mount name ${mount.name} is not a directory name`);
    args.push(mount.readOnly ? '--ro-bind' : '--bind', mount.hostPath, `${MEMORY_MOUNT_ROOT}/${mount.name}`);
  }
  // The stores' copies in the workspace stay out of sight: /mnt/memory is the one way in.
  if (input.workspace && (input.memoryMounts ?? []).length > 0) args.push('--size', String(RUN_BYTES), '--tmpfs', `/workspace/${MEMORY_WORKSPACE_DIR}`);
  args.push(
    // bwrap's own root and /dev are tmpfs the sandbox user owns: freeze them last.
    '--remount-ro',
    '/dev',
    '--remount-ro',
    '/',
    '--chdir',
    input.cwd,
    '--',
    'prlimit',
    ...prlimitArgs(input.limits),
    '--',
  );
  const closeFds = closeInheritedFds(passFds);
  args.push('/bin/bash', '-c', input.proxySocket ? `${closeFds}\n${START_RELAY}\nexec "$@"` : `${closeFds}\nexec "$@"`, 'sandbox-init');
  args.push(...input.argv);
  return { args, dataFiles };
}

const ETC_FILES: Record<string, string> = {
  passwd: [
    'root:x:0:0:root:/root:/usr/sbin/nologin',
    `sandbox:x:${SANDBOX_UID}:${SANDBOX_UID}:sandbox:/workspace:/bin/sh`,
    'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
    '',
  ].join('\n'),
  group: ['root:x:0:', `sandbox:x:${SANDBOX_UID}:`, 'nogroup:x:65534:', ''].join('\n'),
  hosts: ['127.0.0.1 localhost sandbox', '::1 localhost ip6-localhost ip6-loopback', ''].join('\n'),
};

/**
 * The worker may hold descriptors without close-on-exec (inherited from its parent, or opened by
 * a library thread mid-spawn); bwrap passes them on. Close everything but stdio (and the
 * descriptors the caller passes on purpose) before the command runs, so no host file or socket
 * leaks in. Needs bash (Essential on Debian).
 */
const closeInheritedFds = (passFds: number[]) => `for fd in /proc/$$/fd/*; do
  fd=\${fd##*/}
  case $fd in ${[0, 1, 2, ...passFds].join('|')}) ;; *) if [ -e "/proc/$$/fd/$fd" ]; then exec {fd}>&-; fi ;; esac
done`;

/**
 * Inside a `restricted` sandbox: relay 127.0.0.1:3128 to the proxy socket, wait until the relay
 * listens (its row in /proc/net/tcp: 127.0.0.1:3128 in LISTEN state), then become the command.
 * The relay dies with the sandbox's PID namespace.
 */
const START_RELAY = `command -v socat >/dev/null 2>&1 || { echo 'sandbox: restricted network needs socat in the snapshot' >&2; exit 125; }
socat TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET_INSIDE} </dev/null >/dev/null 2>&1 &
relay=$!
tries=0
until grep -q ' 0100007F:${PROXY_PORT.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A ' /proc/net/tcp 2>/dev/null; do
  kill -0 "$relay" 2>/dev/null || { echo 'sandbox: egress relay failed to start' >&2; exit 125; }
  tries=$((tries + 1))
  [ "$tries" -le 500 ] || { echo 'sandbox: egress relay did not start' >&2; exit 125; }
  sleep 0.01
done`;
