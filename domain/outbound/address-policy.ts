import ipaddr from 'ipaddr.js';

/**
 * Spec rule "Destinations must resolve only to public addresses": the verdict for one literal
 * address. Pure, so the delivery activity and the API's URL validation share one answer.
 * Reasons are fixed phrases, safe to store and show.
 */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const ALLOWED: AddressVerdict = { allowed: true };
const refuse = (reason: string): AddressVerdict => ({ allowed: false, reason });

// ipaddr.js range names → reasons. Anything not listed and not 'unicast' is 'reserved address'.
const REASONS: Record<string, string> = {
  unspecified: 'unspecified address',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address',
  private: 'private address',
  uniqueLocal: 'unique-local address',
  deprecatedSiteLocal: 'site-local address',
  teredo: 'Teredo address',
};

export function checkDestinationAddress(address: string): AddressVerdict {
  // Only the canonical spellings count: the text we check must be the text we connect to
  // (ipaddr.js would otherwise read `0x7f.1` or `010.0.0.1` with inet_aton rules).
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return checkIPv4(ipaddr.IPv4.parse(address));
  const ip = parseIPv6(withoutZone(address));
  if (!ip) return refuse('not an IP address');
  const verdict = checkIPv6(ip);
  // A zone id only makes sense for scoped (link-local) addresses; never dial one.
  return verdict.allowed && address.includes('%') ? refuse('scoped address') : verdict;
}

export function isIpLiteral(host: string): boolean {
  const bracketed = host.startsWith('[') && host.endsWith(']');
  if (bracketed) return parseIPv6(withoutZone(host.slice(1, -1))) !== null;
  return ipaddr.IPv4.isValidFourPartDecimal(host) || parseIPv6(withoutZone(host)) !== null;
}

const withoutZone = (text: string): string => text.split('%')[0]!;

// ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d` and accepts hex or octal dotted tails, so a
// dotted tail is rewritten to two hex groups here and must be a plain dotted quad.
function parseIPv6(text: string): IPv6 | null {
  let hex = text;
  if (text.includes('.')) {
    const colon = text.lastIndexOf(':');
    const tail = text.slice(colon + 1);
    if (colon === -1 || !ipaddr.IPv4.isValidFourPartDecimal(tail)) return null;
    const [a, b, c, d] = ipaddr.IPv4.parse(tail).octets as [number, number, number, number];
    hex = `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  // Zone ids are stripped by the callers; ipaddr.js would otherwise accept one here.
  return ipaddr.IPv6.isValid(hex) && !hex.includes('%') ? ipaddr.IPv6.parse(hex) : null;
}

function checkIPv4(ip: IPv4): AddressVerdict {
  const range = ip.range();
  // AS112 and AMT anycast ranges are "public" but never a webhook receiver; refuse them too.
  return range === 'unicast' ? ALLOWED : refuse(REASONS[range] ?? 'reserved address');
}

function checkIPv6(ip: IPv6): AddressVerdict {
  const p = ip.parts;
  // ipaddr.js's typed union omits some names it returns (deprecatedSiteLocal), so widen.
  const range: string = ip.range();
  switch (range) {
    case 'ipv4Mapped':
      return viaEmbedded('IPv4-mapped', embeddedAt(p, 6));
    case 'rfc6052':
      // NAT64 local-use 64:ff9b:1::/48 (RFC 8215) may translate into private space by site
      // policy, so refuse it always; the well-known 64:ff9b::/96 is judged by its IPv4 tail.
      return p[2] === 0 ? viaEmbedded('NAT64', embeddedAt(p, 6)) : refuse('NAT64 local-use address');
    case '6to4':
      return viaEmbedded('6to4', embeddedAt(p, 1));
    case 'teredo':
      // Teredo embeds a server (bits 32..64) and an inverted client (last 32 bits) address and
      // relays through either; refusing the whole prefix is the simplest safe choice.
      return refuse(REASONS.teredo!);
    case 'unicast':
      break;
    default:
      return refuse(REASONS[range] ?? 'reserved address');
  }
  // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291) is 'unicast' to ipaddr.js; refuse it
  // always, naming the embedded class when that is the worse news.
  if (p.slice(0, 6).every((part) => part === 0)) {
    const inner = checkIPv4(embeddedAt(p, 6));
    return refuse(inner.allowed ? 'IPv4-compatible address' : `IPv4-compatible ${inner.reason}`);
  }
  // Only 2000::/3 is allocated global unicast; the rest of the space is reserved by IANA.
  return (p[0]! & 0xe000) === 0x2000 ? ALLOWED : refuse('reserved address');
}

function viaEmbedded(form: string, inner: IPv4): AddressVerdict {
  const verdict = checkIPv4(inner);
  return verdict.allowed ? ALLOWED : refuse(`${form} ${verdict.reason}`);
}

// The IPv4 address held in two consecutive 16-bit groups starting at `index`.
function embeddedAt(parts: number[], index: number): IPv4 {
  const high = parts[index]!;
  const low = parts[index + 1]!;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
