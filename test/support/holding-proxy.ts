import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HoldingProxy = {
  /** `http://127.0.0.1:<port>`: point a storage connection here instead of at the S3 server. */
  endpoint: string;
  /**
   * From now on, PUT requests wait before they are forwarded, until `release()` or until `maxMs`
   * have passed (a safety net, so a test that fails midway cannot hang).
   */
  holdPuts(options?: { maxMs?: number }): void;
  /** Forwards every held request and stops holding. */
  release(): void;
  /** True until `release()` (or the safety net) ran. */
  isHolding(): boolean;
  /** Resolves once `count` PUT requests are being held. */
  waitForHeld(count?: number): Promise<void>;
  close(): Promise<void>;
};

/**
 * A tiny HTTP proxy on 127.0.0.1 in front of the test S3 server that can stall PUT requests: a
 * slow or hanging object store, at the wire. Requests are forwarded unchanged (the SDK's
 * signature covers the proxy's host, which path-style S3 servers such as moto do not check).
 */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  if (upstream.hostname !== '127.0.0.1') throw new Error(`the holding proxy only forwards to 127.0.0.1, not ${upstream.hostname}`);
  let holding = false;
  let held: Array<() => void> = [];
  let safetyTimer: NodeJS.Timeout | null = null;
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  const forward = (incoming: IncomingMessage, response: ServerResponse) => {
    const outgoing = request(
      { host: '127.0.0.1', port: Number(upstream.port), method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on('error', () => response.destroy());
    incoming.pipe(outgoing);
  };

  const release = () => {
    holding = false;
    if (safetyTimer) clearTimeout(safetyTimer);
    safetyTimer = null;
    const waiting = held;
    held = [];
    for (const go of waiting) go();
  };

  const server = createServer((incoming, response) => {
    if (!holding || incoming.method !== 'PUT') return forward(incoming, response);
    // The body stays unread in the socket until the request is forwarded.
    incoming.pause();
    held.push(() => forward(incoming, response));
    for (const waiter of waiters.filter((entry) => held.length >= entry.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    holdPuts(options = {}) {
      holding = true;
      if (safetyTimer) clearTimeout(safetyTimer);
      safetyTimer = setTimeout(release, options.maxMs ?? 20_000);
    },
    release,
    isHolding: () => holding,
    waitForHeld(count = 1) {
      if (held.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
