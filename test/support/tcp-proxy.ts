import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type TcpProxy = {
  /** `127.0.0.1:<port>`: give this to a client instead of the target's address. */
  address: string;
  port: number;
  /** Stops moving bytes either way on every connection (a hung peer); new connections are held too. */
  pause(): void;
  /**
   * Holds what the target sends on each connection whose client has sent `marker` (a PostgreSQL
   * connection that ran `listen "channel"`: a listener that lags), until `resume()`.
   */
  holdRepliesTo(marker: string): void;
  /** Moves the held bytes on and goes back to forwarding. */
  resume(): void;
  /** Drops every connection and refuses new ones (the target is down) until `restore()`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
};

/**
 * A TCP proxy on 127.0.0.1 in front of `target` (`host:port`) that a fault test can pause (the
 * peer hangs mid-request) or cut (the peer is down): PostgreSQL, Temporal's gRPC, anything.
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  type Pair = { client: Socket; upstream: Socket; sent: string };
  const pairs = new Set<Pair>();
  let paused = false;
  let down = false;
  let holdMarker: string | null = null;
  // Bytes that arrived while paused, in order, with the socket they are for.
  let held: Array<{ to: Socket; chunk: Buffer }> = [];
  const holding = (pair: Pair, to: Socket) => paused || (holdMarker !== null && to === pair.client && pair.sent.includes(holdMarker));

  const forward = (pair: Pair, from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      // What the client said, kept short: enough to recognise a marker sent in a small query.
      if (from === pair.client) pair.sent = (pair.sent + chunk.toString('latin1')).slice(-4096);
      if (holding(pair, to)) held.push({ to, chunk });
      else to.write(chunk);
    });

  const server = createServer((client) => {
    if (down) return client.destroy();
    const upstream = connect({ host, port });
    const pair: Pair = { client, upstream, sent: '' };
    pairs.add(pair);
    forward(pair, client, upstream);
    forward(pair, upstream, client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as AddressInfo;
  const proxy: TcpProxy = {
    address: `127.0.0.1:${listening}`,
    port: listening,
    pause() {
      paused = true;
    },
    holdRepliesTo(marker) {
      holdMarker = marker;
    },
    resume() {
      paused = false;
      holdMarker = null;
      const release = held;
      held = [];
      for (const { to, chunk } of release) if (!to.destroyed) to.write(chunk);
    },
    cut() {
      down = true;
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      held = [];
    },
    restore() {
      down = false;
    },
    async close() {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
