import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { EgressGuard } from './egress-guard.ts';
import { addressAllowed, compileEgressPolicy, domainAllowed, normalizeTargetHost } from './egress-policy.ts';
import { decideEgress, type HostLookup } from './egress-proxy.ts';

const policy = compileEgressPolicy({ allowedDomains: ['api.example.com', '*.cdn.example.net'], allowedCidrs: ['10.1.0.0/16', '2001:db8::/32'] });

describe('egress policy', () => {
  it('matches exact names and wildcard subdomains, never the wildcard apex or look-alikes', () => {
    expect(domainAllowed(policy, 'api.example.com')).toBe(true);
    expect(domainAllowed(policy, 'x.api.example.com')).toBe(false);
    expect(domainAllowed(policy, 'a.cdn.example.net')).toBe(true);
    expect(domainAllowed(policy, 'a.b.cdn.example.net')).toBe(true);
    expect(domainAllowed(policy, 'cdn.example.net')).toBe(false);
    expect(domainAllowed(policy, 'evilcdn.example.net')).toBe(false);
  });

  it('matches addresses inside the CIDR blocks, IPv4-mapped IPv6 as IPv4', () => {
    expect(addressAllowed(policy, '10.1.255.3')).toBe(true);
    expect(addressAllowed(policy, '10.2.0.1')).toBe(false);
    expect(addressAllowed(policy, '::ffff:10.1.0.9')).toBe(true);
    expect(addressAllowed(policy, '2001:db8:1::5')).toBe(true);
    expect(addressAllowed(policy, '2001:db9::5')).toBe(false);
    expect(addressAllowed(policy, 'not-an-ip')).toBe(false);
  });

  it('normalizes proxy target hosts and refuses odd ones', () => {
    expect(normalizeTargetHost('API.Example.COM.')).toBe('api.example.com');
    expect(normalizeTargetHost('[2001:DB8::1]')).toBe('2001:db8::1');
    expect(normalizeTargetHost('fe80::1%eth0')).toBeNull();
    expect(normalizeTargetHost('a b')).toBeNull();
    expect(normalizeTargetHost('-bad.example')).toBeNull();
  });

  it('rejects malformed entries with the entry path', () => {
    const thrown = (input: { allowedDomains: string[]; allowedCidrs: string[] }) => {
      try {
        compileEgressPolicy(input);
      } catch (error) {
        return error;
      }
      return null;
    };
    expect(thrown({ allowedDomains: ['*'], allowedCidrs: [] })).toMatchObject({ code: 'bad_request', details: { path: 'network.allowedDomains.0' } });
    expect(thrown({ allowedDomains: ['exa mple.com'], allowedCidrs: [] })).toMatchObject({ details: { path: 'network.allowedDomains.0' } });
    // The connection's rules normalize case, as the API does when the allowlist is saved.
    expect(compileEgressPolicy({ allowedDomains: ['Example.com'], allowedCidrs: [] }).domains).toEqual(['example.com']);
    expect(thrown({ allowedDomains: [], allowedCidrs: ['10.0.0.0/8', '10.0.0.0/33'] })).toMatchObject({ details: { path: 'network.allowedCidrs.1' } });
  });
});

describe('egress decisions', () => {
  // Names map to addresses here; nothing is dialled.
  const lookup: HostLookup = async (host) =>
    ({
      'api.example.com': [{ address: '93.184.216.34', family: 4 }],
      'inside.example.org': [{ address: '10.1.2.3', family: 4 }],
      'split.example.org': [
        { address: '10.1.2.3', family: 4 },
        { address: '93.184.216.9', family: 4 },
      ],
      'a.cdn.example.net': [
        { address: '93.184.216.7', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      'rebound.cdn.example.net': [{ address: '::ffff:127.0.0.1', family: 6 }],
      'metadata.cdn.example.net': [{ address: '169.254.169.254', family: 4 }],
    })[host] ?? [];
  const publicOnly: EgressGuard = { allowPrivateNetwork: false };
  const development: EgressGuard = { allowPrivateNetwork: true, protectedPorts: [5432, 7233, 8080] };
  const to = (host: string, port = 443) => ({ host, port });

  it('allows by name (any address), by address (every address), literals only by address', async () => {
    expect(await decideEgress(policy, development, to('api.example.com'), lookup)).toEqual({ ok: true, addresses: ['93.184.216.34'] });
    expect(await decideEgress(policy, development, to('inside.example.org'), lookup)).toEqual({ ok: true, addresses: ['10.1.2.3'] });
    expect(await decideEgress(policy, development, to('split.example.org'), lookup)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress(policy, development, to('10.1.0.1'), lookup)).toEqual({ ok: true, addresses: ['10.1.0.1'] });
    expect(await decideEgress(policy, development, to('93.184.216.34'), lookup)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress(policy, development, to('nowhere.example.org'), lookup)).toMatchObject({ ok: false, status: 502 });
  });

  it('refuses non-public addresses an allowlist admits unless private networks are allowed', async () => {
    expect(await decideEgress(policy, publicOnly, to('inside.example.org'), lookup)).toEqual({
      ok: false,
      status: 403,
      reason: 'inside.example.org resolves to 10.1.2.3, which is not public (private address)',
    });
    expect(await decideEgress(policy, publicOnly, to('10.1.0.1'), lookup)).toEqual({
      ok: false,
      status: 403,
      reason: '10.1.0.1 is not public (private address)',
    });
    expect(await decideEgress(policy, publicOnly, to('metadata.cdn.example.net', 80), lookup)).toMatchObject({
      ok: false,
      status: 403,
      reason: expect.stringContaining('link-local'),
    });
    expect(await decideEgress(policy, publicOnly, to('api.example.com'), lookup)).toEqual({ ok: true, addresses: ['93.184.216.34'] });
  });

  it('never reaches the worker host itself, whatever the allowlist and the private-network setting', async () => {
    const everything = compileEgressPolicy({ allowedDomains: [], allowedCidrs: ['0.0.0.0/0', '::/0'] });
    const own = Object.values(networkInterfaces())
      .flat()
      .map((entry) => entry!.address);
    for (const guard of [publicOnly, development]) {
      for (const address of [
        '127.0.0.1',
        '127.9.9.9',
        '0.0.0.0',
        '::1',
        '::',
        '::ffff:127.0.0.1',
        '::127.0.0.1',
        ...own.filter((address) => !address.includes('%')),
      ]) {
        const decision = await decideEgress(everything, guard, to(address, 8080), lookup);
        expect(decision, address).toMatchObject({ ok: false, status: 403, reason: `${address} is the worker host's own address` });
      }
    }
    // An allowed name is judged by every answer, on every connection (DNS rebinding).
    expect(await decideEgress(policy, development, to('a.cdn.example.net'), lookup)).toEqual({
      ok: false,
      status: 403,
      reason: "a.cdn.example.net resolves to 127.0.0.1, which is the worker host's own address",
    });
    expect(await decideEgress(policy, development, to('rebound.cdn.example.net'), lookup)).toMatchObject({ ok: false, status: 403 });
  });

  it("keeps the service's own ports closed on private addresses where private networks are allowed", async () => {
    expect(await decideEgress(policy, development, to('10.1.0.1', 5432), lookup)).toEqual({
      ok: false,
      status: 403,
      reason: "10.1.0.1 port 5432 is one of the service's own",
    });
    expect(await decideEgress(policy, development, to('inside.example.org', 7233), lookup)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress(policy, development, to('10.1.0.1', 80), lookup)).toMatchObject({ ok: true });
    // A public address is not the service's, whatever its port.
    expect(await decideEgress(policy, publicOnly, to('api.example.com', 5432), lookup)).toMatchObject({ ok: true });
  });

  it('does not resolve names it could never allow', async () => {
    const names: string[] = [];
    const domainsOnly = compileEgressPolicy({ allowedDomains: ['api.example.com'], allowedCidrs: [] });
    const counting: HostLookup = async (host) => (names.push(host), [{ address: '93.184.216.34', family: 4 }]);
    expect(await decideEgress(domainsOnly, publicOnly, to('other.example.com'), counting)).toMatchObject({ ok: false, status: 403 });
    expect(names).toEqual([]);
  });
});
