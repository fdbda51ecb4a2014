/**
 * Where a credential policy lets a credential go: URLs whose origin is exactly the policy's
 * `exactOrigin` and whose path starts with `pathPrefix` at a segment boundary (`/mcp` contains
 * `/mcp` and `/mcp/x`, not `/mcpx`). Query strings do not matter; a URL with user info or a
 * fragment is never contained.
 */
export function policyContains(policy: { exactOrigin: string; pathPrefix: string }, urlText: string): boolean {
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') return false;
  if (url.origin !== policy.exactOrigin) return false;
  const prefix = policy.pathPrefix;
  if (prefix === '/') return true;
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  return url.pathname === trimmed || url.pathname.startsWith(`${trimmed}/`);
}

/** `exactOrigin` must be an origin and nothing more: scheme, host, optional port, no path. */
export function exactOriginProblem(text: string, options: { allowPlainHttp: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'exactOrigin must be an origin such as https://mcp.example.com';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowPlainHttp)) {
    return options.allowPlainHttp ? 'exactOrigin must use https:// or http://' : 'exactOrigin must use https://';
  }
  if (url.origin !== text) return `exactOrigin must be exactly an origin (scheme, host and port only), such as ${url.origin}`;
  return null;
}

/** `pathPrefix` starts with `/`, and holds no `.`/`..` segment, query, fragment or percent-encoded slash. */
export function pathPrefixProblem(prefix: string): string | null {
  if (!prefix.startsWith('/')) return 'pathPrefix must start with /';
  if (/[?#\s]/.test(prefix) || /%2f|%5c/i.test(prefix) || prefix.includes('\\'))
    return 'pathPrefix must be a plain path without query, fragment, spaces or encoded slashes';
  if (prefix.split('/').some((segment) => segment === '.' || segment === '..')) return 'pathPrefix must not contain . or .. segments';
  if (prefix.includes('//')) return 'pathPrefix must not contain empty segments';
  return null;
}
