import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import { buildBwrapArgs, PROXY_PORT } from '../local/bwrap-args.ts';
import { PUBLIC_ONLY, type EgressGuard } from '../local/egress-guard.ts';
import { compileEgressPolicy } from '../local/egress-policy.ts';
import type { HostLookup } from '../local/egress-proxy.ts';
import { openEgressSocket, type EgressSocket } from '../local/egress-socket.ts';
import type { SandboxNetwork } from '../local/exec-request.ts';
import { clampToHard, readHardLimits } from '../local/host-limits.ts';
import { BROWSER_ADDRESS_SPACE_FLOOR_MB, limitsForSnapshot } from '../local/limits.ts';
import { rootfsMounts } from '../local/rootfs.ts';
import { assertRunnableSnapshot, type SnapshotForExec } from '../local/snapshots.ts';
import type { SandboxUser } from '../local/workspace.ts';

/**
 * Starts the snapshot's Chromium inside the same bubblewrap sandbox an exec gets (namespaces,
 * read-only snapshot root, rlimits, network policy) and hands Playwright a `Browser` for it.
 *
 * Playwright launches `executablePath` with its CDP pipe on fds 3 and 4 (`--remote-debugging-pipe`).
 * That executable is a generated bash script in a private directory of the worker: it drops to the
 * sandbox user (setpriv, as `runSandboxed` does with spawn's uid/gid) and execs bwrap, which
 * passes fds 3 and 4 on to Chromium; the sandbox's generated /etc files go in on fds 5, 6, 7
 * (here-documents) and the descriptor sweep inside keeps only 0–4. Playwright's own
 * `--user-data-dir` names a host directory, so the script drops it for one in the sandbox's /tmp.
 *
 * There is no /workspace: the browser tools never read or write workspace files.
 */
export type SandboxedChromium = { browser: Browser; close(): Promise<void> };

export type SandboxedChromiumOptions = {
  user: SandboxUser;
  bwrapPath: string;
  /** Chromium's binary inside the snapshot (not Debian's /usr/bin/chromium launcher script). */
  chromiumPath: string;
  /** Raised to at least BROWSER_ADDRESS_SPACE_FLOOR_MB. */
  addressSpaceFloorMb: number;
  lookup?: HostLookup;
  /** The server's address policy over `restricted` egress; public addresses only by default. */
  egressGuard?: EgressGuard;
};

const SETPRIV = '/usr/bin/setpriv';
const FIRST_DATA_FD = 5;
const CDP_PIPE_FDS = [3, 4];
const CLOSE_TIMEOUT_MS = 10_000;

export async function launchSandboxedChromium(
  options: SandboxedChromiumOptions,
  input: {
    snapshot: SnapshotForExec;
    network: SandboxNetwork;
    /** The longest the browser may live; with the snapshot's `cpu`, its CPU-seconds budget. */
    lifetimeMs: number;
    launchTimeoutMs: number;
  },
): Promise<SandboxedChromium> {
  assertRunnableSnapshot(input.snapshot);
  const policy = input.network.mode === 'restricted' ? compileEgressPolicy(input.network) : null;
  const floor = Math.max(options.addressSpaceFloorMb, BROWSER_ADDRESS_SPACE_FLOOR_MB);
  const limits = clampToHard(limitsForSnapshot(input.snapshot, input.lifetimeMs, { addressSpaceFloorMb: floor }), readHardLimits());
  const rootfs = await rootfsMounts(input.snapshot);

  let egress: EgressSocket | null = null;
  let scriptDir: string | null = null;
  const cleanup = async () => {
    await egress?.close();
    if (scriptDir) await rm(scriptDir, { recursive: true, force: true });
  };
  try {
    egress = policy
      ? await openEgressSocket({ policy, guard: options.egressGuard ?? PUBLIC_ONLY, user: options.user, ...(options.lookup ? { lookup: options.lookup } : {}) })
      : null;
    const invocation = buildBwrapArgs({
      rootfs,
      cwd: '/tmp',
      limits,
      argv: [options.chromiumPath],
      firstDataFd: FIRST_DATA_FD,
      passFds: CDP_PIPE_FDS,
      ...(egress ? { proxySocket: egress.socketPath } : {}),
    });
    // Root-owned and 0700: only the worker may read or run it.
    scriptDir = await mkdtemp(path.join(tmpdir(), 'sbx-browser-'));
    const script = path.join(scriptDir, 'chromium');
    const command = [
      ...((process.getuid?.() ?? 0) !== options.user.uid
        ? [SETPRIV, `--reuid=${options.user.uid}`, `--regid=${options.user.gid}`, '--clear-groups', '--']
        : []),
      options.bwrapPath,
      ...invocation.args,
    ];
    await writeFile(script, launchScript(command, chromiumFlags(input.network, limits.tmpBytes), invocation.dataFiles), { mode: 0o700 });

    const browser = await chromium.launch({
      executablePath: script,
      headless: true,
      chromiumSandbox: false,
      env: { PATH: '/usr/bin:/bin' },
      // The worker owns its signals; bwrap's --die-with-parent ends the sandbox with the worker.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: input.launchTimeoutMs,
    });
    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= (async () => {
        await withTimeout(browser.close(), CLOSE_TIMEOUT_MS).catch(() => {});
        await cleanup();
      })();
      return closing;
    };
    // A crash, a hit limit or a kill: nothing is left to talk to; release the proxy and script.
    browser.once('disconnected', () => void close());
    return { browser, close };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * Chromium's flags, appended after Playwright's so they win: headless without GPU or crash
 * reporter, profile, cache and shared memory in the sandbox's /tmp, and for `restricted` every request
 * (loopback included) through the relay to the egress proxy. Under `none` there is no route at all.
 */
function chromiumFlags(network: SandboxNetwork, tmpBytes: number): string[] {
  const flags = [
    '--headless',
    '--no-sandbox',
    '--user-data-dir=/tmp/chromium',
    '--disable-dev-shm-usage',
    // The cache shares the size-capped /tmp with the profile and shared memory.
    `--disk-cache-size=${Math.floor(tmpBytes / 4)}`,
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-breakpad',
    '--disable-crash-reporter',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
  if (network.mode === 'restricted') flags.push(`--proxy-server=http://127.0.0.1:${PROXY_PORT}`, '--proxy-bypass-list=<-loopback>');
  return flags;
}

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** The executable Playwright runs: Playwright's arguments, less its host profile path, then ours. */
function launchScript(command: string[], flags: string[], dataFiles: Buffer[]): string {
  const heredocs = dataFiles.map((data, index) => {
    const text = data.toString('utf8');
    const delimiter = `SVC_DATA_${FIRST_DATA_FD + index}`;
    if ((text !== '' && !text.endsWith('\n')) || text.split('\n').includes(delimiter) || !Buffer.from(text, 'utf8').equals(data)) {
      throw new InternalConfigurationError('A generated sandbox file cannot be passed as a here-document');
    }
    return { redirect: `${FIRST_DATA_FD + index}<<'${delimiter}'`, body: `${text}${delimiter}\n` };
  });
  return [
    '#!/bin/bash',
    '# Generated by the sandbox browser (activities/sandbox/browser/sandboxed-chromium.ts).',
    'args=()',
    'for arg in "$@"; do',
    '  case $arg in --user-data-dir=*) ;; *) args+=("$arg") ;; esac',
    'done',
    `exec ${command.map(quote).join(' ')} "\${args[@]}" ${flags.map(quote).join(' ')} ${heredocs.map((doc) => doc.redirect).join(' ')}`,
    heredocs.map((doc) => doc.body).join(''),
  ].join('\n');
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
