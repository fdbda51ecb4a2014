import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A test host for sandbox egress: a network namespace on this machine joined to it by a veth
 * pair, so the sandbox proxy has a destination that is neither loopback nor one of this host's
 * own addresses (both of which it always refuses). The link uses a random /30 of 10/8, so the
 * host side is one of this host's interface addresses and the namespace side is a private
 * address that only the development private-network setting lets sandboxes reach. Traffic never
 * leaves the machine. Needs root (CI and the test machines run as root).
 *
 * `expose(port)` makes `address:port` forward (socat inside the namespace) to
 * `hostSideAddress:port`, where a test server listens.
 */
export type EgressTestHost = {
  /** The namespace side: private, not this host's. */
  address: string;
  /** This host's side of the link: one of its own interface addresses. */
  hostSideAddress: string;
  expose(port: number): Promise<void>;
  close(): Promise<void>;
};

const PREFIX = 'svcegress';

/** Network namespaces need root; the tests that need one are skipped (and say so) without it. */
export const canStartEgressTestHost = process.getuid?.() === 0;

export async function startEgressTestHost(): Promise<EgressTestHost> {
  await removeStaleHosts();
  const id = `${process.pid}x${randomInt(1_000_000)}`;
  const namespace = `${PREFIX}-${id}`;
  const hostLink = `sveh${randomInt(1_000_000)}`;
  const peerLink = `${hostLink}p`;
  const net = `10.${randomInt(64, 250)}.${randomInt(256)}.${randomInt(64) * 4}`;
  const base = net.split('.').map(Number);
  const hostSideAddress = `${base[0]}.${base[1]}.${base[2]}.${base[3]! + 1}`;
  const address = `${base[0]}.${base[1]}.${base[2]}.${base[3]! + 2}`;
  const forwarders: ChildProcess[] = [];
  const close = async () => {
    for (const forwarder of forwarders) forwarder.kill('SIGKILL');
    // Deleting the namespace deletes the veth pair (and with it this host's address and route).
    await run('ip', ['netns', 'del', namespace]).catch(() => {});
    await run('ip', ['link', 'del', hostLink]).catch(() => {});
  };
  try {
    await run('ip', ['netns', 'add', namespace]);
    await run('ip', ['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', peerLink]);
    await run('ip', ['link', 'set', peerLink, 'netns', namespace]);
    await run('ip', ['addr', 'add', `${hostSideAddress}/30`, 'dev', hostLink]);
    await run('ip', ['link', 'set', hostLink, 'up']);
    await run('ip', ['netns', 'exec', namespace, 'ip', 'addr', 'add', `${address}/30`, 'dev', peerLink]);
    await run('ip', ['netns', 'exec', namespace, 'ip', 'link', 'set', peerLink, 'up']);
    await run('ip', ['netns', 'exec', namespace, 'ip', 'link', 'set', 'lo', 'up']);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    address,
    hostSideAddress,
    async expose(port) {
      const forwarder = spawn(
        'ip',
        ['netns', 'exec', namespace, 'socat', `TCP-LISTEN:${port},bind=${address},fork,reuseaddr`, `TCP:${hostSideAddress}:${port}`],
        { stdio: 'ignore' },
      );
      forwarders.push(forwarder);
      await untilListening(address, port);
    },
    close,
  };
}

async function untilListening(host: string, port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the egress test host did not start listening on ${host}:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Namespaces of test processes that died without closing theirs. */
async function removeStaleHosts(): Promise<void> {
  const { stdout } = await run('ip', ['netns', 'list']).catch(() => ({ stdout: '' }));
  for (const line of stdout.split('\n')) {
    const match = new RegExp(`^(${PREFIX}-(\\d+)x\\d+)`).exec(line);
    if (!match || isAlive(Number(match[2]))) continue;
    await run('ip', ['netns', 'del', match[1]!]).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
