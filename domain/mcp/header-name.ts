/**
 * Which header an `api_key_header` credential may be sent in. An HTTP token (RFC 9110 field
 * name), at most 64 characters, and none of the headers that would change how the request is
 * routed, framed or attributed, or that the MCP transports set themselves: hop-by-hop headers,
 * `Host`, `Cookie`, `Content-*`, `Transfer-Encoding`, `Proxy-*`, `Mcp-*`, `Last-Event-ID`,
 * `Accept`, `Origin`, `Forwarded` and `X-Forwarded-*`. `Authorization` is allowed (an
 * `api_key_header` credential may carry its own scheme); pseudo-headers (`:authority`) are not
 * tokens.
 */
export function headerNameProblem(name: string): string | null {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name)) return 'headerName must be an HTTP header name of 1-64 token characters';
  const lower = name.toLowerCase();
  if (FORBIDDEN.has(lower) || FORBIDDEN_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
    return `headerName "${name}" is reserved: hop-by-hop, routing, body, cookie and MCP transport headers cannot carry a credential`;
  }
  return null;
}

const FORBIDDEN = new Set([
  'host',
  'cookie',
  'set-cookie',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'accept',
  'accept-encoding',
  'origin',
  'referer',
  'forwarded',
  'via',
  'expect',
  'last-event-id',
  'user-agent',
]);
const FORBIDDEN_PREFIXES = ['content-', 'proxy-', 'mcp-', 'x-forwarded-', 'sec-'];
