import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type DestinationLookup, pinnedPost } from './pinned-post.ts';

type Received = { method: string | undefined; url: string | undefined; headers: IncomingHttpHeaders; body: string };

const servers: Server[] = [];

// A real server on 127.0.0.1 that records every request it fully receives.
async function startServer(respond: RequestListener = (_req, res) => res.writeHead(204).end()) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, received, url: `http://127.0.0.1:${port}/hooks` };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const base = { headers: {}, body: '{}', timeoutMs: 2_000, allowPrivateNetwork: true };

describe('pinnedPost', () => {
  it('sends exactly the body and headers and reports the status', async () => {
    const server = await startServer((_req, res) => res.writeHead(202).end('accepted, with a body we never read'));
    const body = '{"type":"run.completed","data":{"id":"0b6e3c1e"}}';
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-signature': 'v1,abc=' };
    const outcome = await pinnedPost({ ...base, url: server.url, headers, body });
    expect(outcome).toEqual({ kind: 'response', status: 202, retryAfterMs: null });
    expect(server.received).toHaveLength(1);
    expect(server.received[0]).toMatchObject({ method: 'POST', url: '/hooks', body, headers });
    expect(server.received[0]!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('parses Retry-After as delta-seconds or an HTTP-date', async () => {
    let retryAfter = '';
    const server = await startServer((_req, res) => res.writeHead(503, { 'retry-after': retryAfter }).end());
    const post = async (value: string) => {
      retryAfter = value;
      const outcome = await pinnedPost({ ...base, url: server.url });
      return outcome.kind === 'response' ? outcome.retryAfterMs : 'no response';
    };
    expect(await post('120')).toBe(120_000);
    expect(await post('0')).toBe(0);
    // An HTTP-date a minute ahead (whole seconds): the delay is what is left of it when parsed.
    const asked = Date.now();
    const inAMinute = await post(new Date(asked + 60_000).toUTCString());
    const answered = Date.now();
    expect(inAMinute).toBeGreaterThanOrEqual(asked + 60_000 - 1_000 - answered);
    expect(inAMinute).toBeLessThanOrEqual(60_000);
    expect(await post('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0);
    for (const invalid of ['soon', '-5', '1.5', '2030-01-01']) expect(await post(invalid)).toBeNull();
  });

  it('does not follow redirects', async () => {
    const target = await startServer();
    const server = await startServer((_req, res) => res.writeHead(302, { location: target.url }).end());
    const outcome = await pinnedPost({ ...base, url: server.url });
    expect(outcome).toEqual({ kind: 'response', status: 302, retryAfterMs: null });
    expect(target.received).toHaveLength(0);
  });

  it('times out on a server that never answers', async () => {
    const server = await startServer(() => {});
    const started = Date.now();
    const outcome = await pinnedPost({ ...base, url: server.url, timeoutMs: 300 });
    expect(outcome).toEqual({ kind: 'timeout' });
    // The deadline is the subject: not before its 300 ms; a deadline not applied would hang until
    // the test's timeout, so the upper bound only has to be loose.
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('reports a closed port as connection refused', async () => {
    const server = await startServer();
    const closed = servers.pop()!;
    await new Promise((resolve) => closed.close(resolve));
    expect(await pinnedPost({ ...base, url: server.url })).toEqual({ kind: 'connection_failed', reason: 'connection refused' });
  });

  it('reports an external abort as connection_failed, not timeout', async () => {
    const server = await startServer(() => {});
    const outcome = await pinnedPost({ ...base, url: server.url, signal: AbortSignal.timeout(100) });
    expect(outcome).toEqual({ kind: 'connection_failed', reason: 'aborted' });
  });

  it('reports a failed lookup with its code only', async () => {
    const lookup: DestinationLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND secret-token.example'), { code: 'ENOTFOUND' });
    };
    const outcome = await pinnedPost({ ...base, url: 'http://nowhere.example.test/', lookup });
    expect(outcome).toEqual({ kind: 'connection_failed', reason: 'DNS lookup failed (ENOTFOUND)' });
  });

  it('throws for a non-http URL', async () => {
    await expect(pinnedPost({ ...base, url: 'file:///etc/passwd' })).rejects.toThrow(TypeError);
  });
});

describe('pinnedPost address policy', () => {
  const strict = { ...base, allowPrivateNetwork: false };

  it('blocks literal private addresses without connecting', async () => {
    const server = await startServer();
    expect(await pinnedPost({ ...strict, url: server.url })).toEqual({ kind: 'destination_blocked', reason: 'loopback address' });
    expect(await pinnedPost({ ...strict, url: `http://[::1]:${server.port}/` })).toEqual({ kind: 'destination_blocked', reason: 'loopback address' });
    expect(await pinnedPost({ ...strict, url: `http://[::ffff:127.0.0.1]:${server.port}/` })).toEqual({
      kind: 'destination_blocked',
      reason: 'IPv4-mapped loopback address',
    });
    expect(server.received).toHaveLength(0);
  });

  it('blocks localhost through the real system lookup', async () => {
    const server = await startServer();
    const outcome = await pinnedPost({ ...strict, url: `http://localhost:${server.port}/` });
    expect(outcome).toEqual({ kind: 'destination_blocked', reason: 'resolves to a loopback address' });
    expect(server.received).toHaveLength(0);
  });

  it('blocks when any resolved address is not public', async () => {
    const server = await startServer();
    const lookup: DestinationLookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const outcome = await pinnedPost({ ...strict, url: `http://hooks.example.test:${server.port}/`, lookup });
    expect(outcome).toEqual({ kind: 'destination_blocked', reason: 'resolves to a loopback address' });
    expect(server.received).toHaveLength(0);
  });

  it('connects to the checked address with one lookup and keeps the Host header', async () => {
    const server = await startServer();
    const asked: string[] = [];
    const lookup: DestinationLookup = async (hostname) => {
      asked.push(hostname);
      // A rebinding resolver would answer differently the second time; there is none.
      return asked.length === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.255.255.1', family: 4 }];
    };
    const outcome = await pinnedPost({ ...base, url: `http://hooks.example.test:${server.port}/in`, lookup });
    expect(outcome).toEqual({ kind: 'response', status: 204, retryAfterMs: null });
    expect(asked).toEqual(['hooks.example.test']);
    expect(server.received[0]!.headers.host).toBe(`hooks.example.test:${server.port}`);
  });

  it('dials only the first resolved address, with no fallback to the others', async () => {
    const server = await startServer();
    // Nothing listens on 127.0.0.2; connecting to the second answer would have succeeded.
    const lookup: DestinationLookup = async () => [
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const outcome = await pinnedPost({ ...base, url: `http://hooks.example.test:${server.port}/`, lookup });
    expect(outcome).toEqual({ kind: 'connection_failed', reason: 'connection refused' });
    expect(server.received).toHaveLength(0);
  });
});
