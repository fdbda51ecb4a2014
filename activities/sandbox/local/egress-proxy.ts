import { lookup as dnsLookup } from 'node:dns/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { egressRefusal, type EgressGuard } from './egress-guard.ts';
import { addressAllowed, domainAllowed, normalizeTargetHost, type EgressPolicy } from './egress-policy.ts';

/**
 * The filtering HTTP proxy behind `restricted` egress. It runs in the worker, listens on a Unix
 * socket that is bind-mounted into one sandbox (socat inside relays 127.0.0.1:3128 to it), and
 * handles CONNECT (https and any TCP) and absolute-URI plain-http requests. Each target is
 * resolved once per connection and judged twice: by the connection's allowlist, then every
 * address by the server's address policy (`egress-guard.ts`), so an allowed name that resolves to
 * a private or host address is refused (DNS rebinding included). The connection goes to a
 * checked address, never to a second DNS answer. Refusals are 403, upstream trouble 502.
 */
export type HostLookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export type EgressProxy = { close(): Promise<void> };

/**
 * Marks the proxy's own answers (refusals, upstream failures). A client that proxies plain http
 * (a browser) shows them as the page, so this is how the sandbox browser tells them apart.
 */
export const EGRESS_ANSWER_HEADER = 'x-sandbox-egress';

const CONNECT_TIMEOUT_MS = 10_000;

const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

type Decision = { ok: true; addresses: string[] } | { ok: false; status: 400 | 403 | 502; reason: string };

export async function decideEgress(policy: EgressPolicy, guard: EgressGuard, target: { host: string; port: number }, lookup: HostLookup): Promise<Decision> {
  const host = normalizeTargetHost(target.host);
  if (!host) return { ok: false, status: 400, reason: 'invalid target host' };
  // A literal address is only ever judged by the CIDR list.
  if (isIP(host)) {
    if (!addressAllowed(policy, host)) return { ok: false, status: 403, reason: `${host} is not in allowedCidrs` };
    const refusal = egressRefusal(guard, host, target.port);
    return refusal ? { ok: false, status: 403, reason: `${host} ${refusal}` } : { ok: true, addresses: [host] };
  }
  const byName = domainAllowed(policy, host);
  if (!byName && policy.cidrs.length === 0) return { ok: false, status: 403, reason: `${host} is not in allowedDomains` };
  let addresses: string[];
  try {
    addresses = (await lookup(host)).map((entry) => entry.address);
  } catch {
    return { ok: false, status: 502, reason: `${host} could not be resolved` };
  }
  if (addresses.length === 0) return { ok: false, status: 502, reason: `${host} could not be resolved` };
  if (!byName && !addresses.every((address) => addressAllowed(policy, address))) {
    return { ok: false, status: 403, reason: `${host} is not in allowedDomains and resolves outside allowedCidrs` };
  }
  // Every answer, not only the first: the proxy may dial any of them.
  for (const address of addresses) {
    const refusal = egressRefusal(guard, address, target.port);
    if (refusal) return { ok: false, status: 403, reason: `${host} resolves to ${address}, which ${refusal}` };
  }
  return { ok: true, addresses };
}

export async function startEgressProxy(options: { socketPath: string; policy: EgressPolicy; guard: EgressGuard; lookup?: HostLookup }): Promise<EgressProxy> {
  const lookup = options.lookup ?? systemLookup;
  const judge = (target: { host: string; port: number }) => decideEgress(options.policy, options.guard, target, lookup);
  const open = new Set<Duplex>();
  const track = (socket: Duplex) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };

  const server = createServer((req, res) => {
    forwardPlainHttp(req, res, judge, track).catch(() => res.destroy());
  });
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    tunnel(req, client, head, judge, track).catch(() => client.destroy());
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}

type Judge = (target: { host: string; port: number }) => Promise<Decision>;

async function tunnel(req: IncomingMessage, client: Duplex, head: Buffer, judge: Judge, track: (socket: Duplex) => void) {
  client.on('error', () => {});
  const target = parseAuthority(req.url ?? '');
  if (!target) return refuse(client, 400, 'CONNECT needs host:port');
  const decision = await judge(target);
  if (!decision.ok) return refuse(client, decision.status, decision.reason);
  let upstream: Socket;
  try {
    upstream = await connectFirst(decision.addresses, target.port);
  } catch {
    return refuse(client, 502, `could not connect to ${target.host}:${target.port}`);
  }
  track(upstream);
  if (client.destroyed) return upstream.destroy();
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) upstream.write(head);
  upstream.pipe(client);
  client.pipe(upstream);
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}

async function forwardPlainHttp(req: IncomingMessage, res: ServerResponse, judge: Judge, track: (socket: Duplex) => void) {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    return reply(res, 400, 'this proxy takes absolute http:// URLs or CONNECT');
  }
  if (url.protocol !== 'http:') return reply(res, 400, 'only http:// URLs are proxied without CONNECT');
  const port = url.port ? Number(url.port) : 80;
  const decision = await judge({ host: url.hostname, port });
  if (!decision.ok) return reply(res, decision.status, decision.reason);
  let upstream: Socket;
  try {
    upstream = await connectFirst(decision.addresses, port);
  } catch {
    return reply(res, 502, `could not connect to ${url.host}`);
  }
  track(upstream);
  const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: req.headers.host ?? url.host };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  // The pre-connected socket pins the checked address; `createConnection` hands it to http.
  const outgoing = httpRequest({ method: req.method, path: `${url.pathname}${url.search}`, headers, createConnection: () => upstream });
  outgoing.on('response', (incoming) => {
    // Only the proxy's own answers carry the marker.
    const upstreamHeaders = { ...incoming.headers };
    delete upstreamHeaders[EGRESS_ANSWER_HEADER];
    res.writeHead(incoming.statusCode ?? 502, upstreamHeaders);
    incoming.pipe(res);
  });
  outgoing.on('error', () => (res.headersSent ? res.destroy() : reply(res, 502, `upstream ${url.host} failed`)));
  req.pipe(outgoing);
}

/** Tries each checked address in order; all of them passed the policy. */
async function connectFirst(addresses: string[], port: number): Promise<Socket> {
  let lastError: unknown = new Error('no address');
  for (const address of addresses) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect({ host: address, port, timeout: CONNECT_TIMEOUT_MS });
        socket.once('connect', () => {
          socket.setTimeout(0);
          socket.off('error', reject);
          resolve(socket);
        });
        socket.once('timeout', () => socket.destroy(new Error('connect timeout')));
        socket.once('error', reject);
      });
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (!match) return null;
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { host: match[1]!, port } : null;
}

function refuse(client: Duplex, status: number, reason: string) {
  const body = `sandbox egress: ${reason}\n`;
  client.end(
    `HTTP/1.1 ${status} ${statusText(status)}\r\nContent-Type: text/plain\r\n${EGRESS_ANSWER_HEADER}: ${status}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function reply(res: ServerResponse, status: number, reason: string) {
  res.writeHead(status, { 'content-type': 'text/plain', [EGRESS_ANSWER_HEADER]: String(status), connection: 'close' });
  res.end(`sandbox egress: ${reason}\n`);
}

const statusText = (status: number) => ({ 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' })[status] ?? 'Error';
