import { BUILT_IN_SNAPSHOT } from '../../../domain/sandbox/snapshot-registry.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecRequest, SandboxNetwork } from './driver.ts';
import { createTestDriver, startHttpServer, type TestDriver } from './test-support.ts';

/**
 * Egress from a real sandbox to HTTP servers on the host's loopback: unreachable under `none`,
 * and under `restricted` reachable only through the filtering proxy, only when allowed.
 * Server A listens on 127.0.0.1, server B on 127.0.0.2 (the whole of 127/8 is loopback).
 */
let t: TestDriver;
let named: TestDriver;
let a: Awaited<ReturnType<typeof startHttpServer>>;
let b: Awaited<ReturnType<typeof startHttpServer>>;

// Test-only DNS for the proxy, so domain rules can be exercised without a resolver.
const names: Record<string, string> = { 'allowed.test': '127.0.0.1', 'api.wild.test': '127.0.0.2', 'wild.test': '127.0.0.2', 'blocked.test': '127.0.0.1' };

beforeAll(async () => {
  [t, named, a, b] = await Promise.all([
    createTestDriver(),
    createTestDriver({ lookup: async (host) => (names[host] ? [{ address: names[host]!, family: 4 }] : []) }),
    startHttpServer('127.0.0.1', 'from-A'),
    startHttpServer('127.0.0.2', 'from-B'),
  ]);
});
afterAll(async () => {
  await Promise.all([t.cleanup(), named.cleanup(), a.close(), b.close()]);
});

// One line "<curl exit>:<status>:<body>" per URL; `flags` go to curl.
const probe = (driver: TestDriver, network: SandboxNetwork, urls: string[], flags = '') => {
  // Through a tunnel the proxy's own answer is the CONNECT status.
  const status = flags.includes('--proxytunnel') ? '%{http_connect}' : '%{http_code}';
  const script = urls
    .map((url) => `rm -f /tmp/body; code=$(curl -sS -m 5 ${flags} -o /tmp/body -w '${status}' '${url}' 2>/dev/null); echo "$?:$code:$(tr -d '\\n' < /tmp/body 2>/dev/null)"`)
    .join('\n');
  const request: ExecRequest = { sandboxId: randomUUID(), snapshot: BUILT_IN_SNAPSHOT, argv: ['bash', '-c', script], network, timeoutMs: 15_000 };
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

describe('network restricted', () => {
  it('reaches an allowed CIDR through the proxy (plain http and CONNECT) and nothing else', async () => {
    const network: SandboxNetwork = { mode: 'restricted', allowedDomains: [], allowedCidrs: ['127.0.0.1/32'] };
    const viaProxy = await probe(t, network, [`http://127.0.0.1:${a.port}/`, `http://127.0.0.2:${b.port}/`]);
    expect(viaProxy[0]).toBe('0:200:from-A');
    expect(viaProxy[1]).toBe('0:403:sandbox egress: 127.0.0.2 is not in allowedCidrs');

    const tunnelled = await probe(t, network, [`http://127.0.0.1:${a.port}/`, `http://127.0.0.2:${b.port}/`], '--proxytunnel');
    expect(tunnelled[0]).toBe('0:200:from-A');
    expect(tunnelled[1]).toMatch(/^56:403:/); // CONNECT refused

    // Going around the proxy finds nothing: the sandbox's loopback is its own.
    const direct = await probe(t, network, [`http://127.0.0.1:${a.port}/`], "--noproxy '*'");
    expect(direct[0]).toMatch(/^7:/);
  });

  it('allows exact domains and wildcard subdomains, judging names before addresses', async () => {
    const network: SandboxNetwork = { mode: 'restricted', allowedDomains: ['allowed.test', '*.wild.test'], allowedCidrs: [] };
    const lines = await probe(named, network, [
      `http://allowed.test:${a.port}/`,
      `http://api.wild.test:${b.port}/`,
      `http://wild.test:${b.port}/`, // the apex is not covered by *.wild.test
      `http://blocked.test:${a.port}/`, // same address as allowed.test, but not an allowed name
      `http://127.0.0.1:${a.port}/`, // a literal address needs allowedCidrs
    ]);
    expect(lines[0]).toBe('0:200:from-A');
    expect(lines[1]).toBe('0:200:from-B');
    expect(lines.slice(2).map((line) => line.split(':').slice(0, 2).join(':'))).toEqual(['0:403', '0:403', '0:403']);

    const tunnelled = await probe(named, network, [`http://api.wild.test:${b.port}/`, `http://blocked.test:${a.port}/`], '--proxytunnel');
    expect(tunnelled[0]).toBe('0:200:from-B');
    expect(tunnelled[1]).toMatch(/^56:403:/);
  });
});
