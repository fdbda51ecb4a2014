import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type TcpProxy = {
  /** `127.0.0.1:<port>`: give this to a client instead of the target's address. */
  address: string;
  port: number;
  /** Stops moving bytes either way on every connection (a hung peer); new connections are held too. */
  pause(): void;
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
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let paused = false;
  let down = false;
  // Bytes that arrived while paused, in order, with the socket they are for.
  let held: Array<{ to: Socket; chunk: Buffer }> = [];

  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (paused) held.push({ to, chunk });
      else to.write(chunk);
    });

  const server = createServer((client) => {
    if (down) return client.destroy();
    const upstream = connect({ host, port });
    const pair = { client, upstream };
    pairs.add(pair);
    forward(client, upstream);
    forward(upstream, client);
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
    resume() {
      paused = false;
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
