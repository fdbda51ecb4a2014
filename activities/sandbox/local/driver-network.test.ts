import { BUILT_IN_SNAPSHOT } from '../../../domain/sandbox/snapshot-registry.ts';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canStartEgressTestHost, startEgressTestHost, type EgressTestHost } from '../../../test/support/egress-test-host.ts';
import type { ExecRequest, SandboxNetwork } from './driver.ts';
import { createTestDriver, startHttpServer, type TestDriver } from './test-support.ts';

/**
 * Egress from a real sandbox: unreachable under `none`; under `restricted` reachable only
 * through the filtering proxy, only when the allowlist allows it and the server's address policy
 * does too. Servers A and B listen on this host's side of a test host's link and are exposed on
 * the test host (a network namespace at a private address, test/support/egress-test-host.ts);
 * this host itself (loopback, its own interface addresses) is never reachable.
 */
let t: TestDriver;
let named: TestDriver;
let strict: TestDriver;
let host: EgressTestHost;
let a: Awaited<ReturnType<typeof startHttpServer>>;
let b: Awaited<ReturnType<typeof startHttpServer>>;
// Every connection to this host at `guarded.port`, on any of its addresses (dual-stack `::`).
let guarded: { port: number; connections: number; close(): Promise<void> };

// Test-only DNS for the proxy, so domain rules can be exercised without a resolver.
let names: Record<string, string> = {};
const development = { allowPrivateNetwork: true, protectedPorts: [5432] };

beforeAll(async () => {
  t = await createTestDriver({ egressGuard: development });
  named = await createTestDriver({
    egressGuard: development,
    lookup: async (name) => (names[name] ? [{ address: names[name]!, family: names[name]!.includes(':') ? 6 : 4 }] : []),
  });
  strict = await createTestDriver({ egressGuard: { allowPrivateNetwork: false } });
  if (!canStartEgressTestHost) return;
  host = await startEgressTestHost();
  [a, b, guarded] = await Promise.all([startHttpServer(host.hostSideAddress, 'from-A'), startHttpServer(host.hostSideAddress, 'from-B'), countingServer()]);
  await Promise.all([host.expose(a.port), host.expose(b.port)]);
  names = {
    'allowed.test': host.address,
    'api.wild.test': host.address,
    'wild.test': host.address,
    'blocked.test': host.address,
    'loop.wild.test': '127.0.0.1',
    'own.wild.test': host.hostSideAddress,
  };
});
afterAll(async () => {
  await Promise.all([t.cleanup(), named.cleanup(), strict.cleanup(), a?.close(), b?.close(), guarded?.close()]);
  await host?.close();
});

async function countingServer(): Promise<{ port: number; connections: number; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => res.end('host service'));
  const state = { port: 0, connections: 0, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
  server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  state.port = (server.address() as { port: number }).port;
  return state;
}

// One line "<curl exit>:<status>:<body>" per URL; `flags` go to curl.
const probe = (driver: TestDriver, network: SandboxNetwork, urls: string[], flags = '') => {
  // Through a tunnel the proxy's own answer is the CONNECT status.
  const status = flags.includes('--proxytunnel') ? '%{http_connect}' : '%{http_code}';
  const script = urls
    .map(
      (url) =>
        `rm -f /tmp/body; code=$(curl -sS -m 5 ${flags} -o /tmp/body -w '${status}' '${url}' 2>/dev/null); echo "$?:$code:$(tr -d '\\n' < /tmp/body 2>/dev/null)"`,
    )
    .join('\n');
  const request: ExecRequest = { sandboxId: randomUUID(), snapshot: BUILT_IN_SNAPSHOT, argv: ['bash', '-c', script], network, timeoutMs: 30_000 };
  return driver.driver.exec(request).then((result) => result.stdout.trim().split('\n'));
};

describe('network none', () => {
  it('has only its own loopback and cannot reach a host loopback port', async () => {
    const result = await t.driver.exec({
      sandboxId: randomUUID(),
      snapshot: BUILT_IN_SNAPSHOT,
      argv: ['bash', '-c', `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; curl -sS -m 3 http://127.0.0.1:${a.port}/; echo "curl=$?"`],
      network: { mode: 'none' },
      timeoutMs: 10_000,
    });
    expect(result.stdout).toBe('lo\ncurl=7\n');
    expect(result.stderr).toMatch(/Failed to connect/);
  });
});

describe.skipIf(!canStartEgressTestHost)('network restricted', () => {
  it('reaches an allowed CIDR through the proxy (plain http and CONNECT) and nothing else', async () => {
    const network: SandboxNetwork = { mode: 'restricted', allowedDomains: [], allowedCidrs: [`${host.address}/32`] };
    const viaProxy = await probe(t, network, [`http://${host.address}:${a.port}/`, `http://198.51.100.7:${b.port}/`]);
    expect(viaProxy[0]).toBe('0:200:from-A');
    expect(viaProxy[1]).toBe('0:403:sandbox egress: 198.51.100.7 is not in allowedCidrs');

    const tunnelled = await probe(t, network, [`http://${host.address}:${a.port}/`, `http://198.51.100.7:${b.port}/`], '--proxytunnel');
    expect(tunnelled[0]).toBe('0:200:from-A');
    expect(tunnelled[1]).toMatch(/^56:403:/); // CONNECT refused

    // Going around the proxy finds nothing: the sandbox's network namespace has only its own loopback.
    const direct = await probe(t, network, [`http://${host.address}:${a.port}/`], "--noproxy '*'");
    expect(direct[0]).toMatch(/^7:/);
  });

  it('allows exact domains and wildcard subdomains, judging names before addresses', async () => {
    const network: SandboxNetwork = { mode: 'restricted', allowedDomains: ['allowed.test', '*.wild.test'], allowedCidrs: [] };
    const lines = await probe(named, network, [
      `http://allowed.test:${a.port}/`,
      `http://api.wild.test:${b.port}/`,
      `http://wild.test:${b.port}/`, // the apex is not covered by *.wild.test
      `http://blocked.test:${a.port}/`, // same address as allowed.test, but not an allowed name
      `http://${host.address}:${a.port}/`, // a literal address needs allowedCidrs
    ]);
    expect(lines[0]).toBe('0:200:from-A');
    expect(lines[1]).toBe('0:200:from-B');
    expect(lines.slice(2).map((line) => line.split(':').slice(0, 2).join(':'))).toEqual(['0:403', '0:403', '0:403']);

    const tunnelled = await probe(named, network, [`http://api.wild.test:${b.port}/`, `http://blocked.test:${a.port}/`], '--proxytunnel');
    expect(tunnelled[0]).toBe('0:200:from-B');
    expect(tunnelled[1]).toMatch(/^56:403:/);
  });

  it('never reaches the worker host itself, whatever the allowlist holds (issue 28)', async () => {
    // The widest allowlist and private networks allowed: still not one connection to this host.
    const network: SandboxNetwork = { mode: 'restricted', allowedDomains: ['*.wild.test'], allowedCidrs: ['0.0.0.0/0', '::/0'] };
    const own = Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry && !entry.address.includes('%'))
      .map((entry) => entry!.address);
    const targets = [
      '127.0.0.1',
      '127.0.0.2',
      '0.0.0.0',
      '[::1]',
      '[::ffff:127.0.0.1]',
      host.hostSideAddress,
      ...own.map((address) => (address.includes(':') ? `[${address}]` : address)),
    ];
    const urls = [...new Set(targets)].map((target) => `http://${target}:${guarded.port}/`);
    urls.push(`http://loop.wild.test:${guarded.port}/`, `http://own.wild.test:${guarded.port}/`); // allowed names that resolve to this host
    const plain = await probe(named, network, urls);
    const tunnelled = await probe(named, network, urls, '--proxytunnel');
    for (const [index, url] of urls.entries()) {
      expect(plain[index], url).toMatch(/^0:403:sandbox egress: .*(worker host's own address)/);
      expect(tunnelled[index], url).toMatch(/^56:403:/);
    }
    expect(guarded.connections).toBe(0);
    // The same sandbox does reach the test host: the refusals above are the policy, not a dead network.
    expect((await probe(named, network, [`http://${host.address}:${a.port}/`]))[0]).toBe('0:200:from-A');
  });

  it('refuses private addresses an allowlist names unless the server allows private networks', async () => {
    // A connection saved before the address policy applied to allowlists still opens nothing private.
    const network: SandboxNetwork = { mode: 'restricted', allowedDomains: [], allowedCidrs: ['10.0.0.0/8'] };
    const lines = await probe(strict, network, [`http://${host.address}:${a.port}/`], '');
    expect(lines[0]).toBe(`0:403:sandbox egress: ${host.address} is not public (private address)`);
    const tunnelled = await probe(strict, network, [`http://${host.address}:${a.port}/`], '--proxytunnel');
    expect(tunnelled[0]).toMatch(/^56:403:/);
    // With private networks allowed, the service's own ports stay closed there.
    const servicePort = await probe(t, network, [`http://${host.address}:5432/`]);
    expect(servicePort[0]).toBe(`0:403:sandbox egress: ${host.address} port 5432 is one of the service's own`);
  });
});
