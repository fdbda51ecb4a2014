import { describe, expect, it } from 'vitest';
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
  const lookup: HostLookup = async (host) =>
    ({ 'api.example.com': [{ address: '192.0.2.1', family: 4 }], 'inside.example.org': [{ address: '10.1.2.3', family: 4 }], 'split.example.org': [{ address: '10.1.2.3', family: 4 }, { address: '192.0.2.9', family: 4 }] })[host] ?? [];

  it('allows by name (any address), by address (every address), literals only by address', async () => {
    expect(await decideEgress(policy, 'api.example.com', lookup)).toEqual({ ok: true, addresses: ['192.0.2.1'] });
    expect(await decideEgress(policy, 'inside.example.org', lookup)).toEqual({ ok: true, addresses: ['10.1.2.3'] });
    expect(await decideEgress(policy, 'split.example.org', lookup)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress(policy, '10.1.0.1', lookup)).toEqual({ ok: true, addresses: ['10.1.0.1'] });
    expect(await decideEgress(policy, '192.0.2.1', lookup)).toMatchObject({ ok: false, status: 403 });
    expect(await decideEgress(policy, 'nowhere.example.org', lookup)).toMatchObject({ ok: false, status: 502 });
  });

  it('does not resolve names it could never allow', async () => {
    const names: string[] = [];
    const domainsOnly = compileEgressPolicy({ allowedDomains: ['api.example.com'], allowedCidrs: [] });
    const counting: HostLookup = async (host) => (names.push(host), [{ address: '192.0.2.1', family: 4 }]);
    expect(await decideEgress(domainsOnly, 'other.example.com', counting)).toMatchObject({ ok: false, status: 403 });
    expect(names).toEqual([]);
  });
});
