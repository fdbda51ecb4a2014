/**
 * The agent calls this process is running, so a `notifications/cancelled` can reach the call it
 * names. The door is stateless (a new MCP server per HTTP request), and a client sends the
 * cancellation in a request of its own: without this table, the server that hears it knows no
 * request. A call is named by who made it (the principal), the client connection (the
 * `mcp-session-id` the door hands out, see app.ts) and the JSON-RPC request id: one caller's
 * notification cannot stop another's call, nor one client's another client of the same key.
 */
export type InFlightCalls = {
  /** Tracks a call until `done`; its `signal` aborts when a cancellation names it. */
  track(key: InFlightKey): { signal: AbortSignal; done(): void };
  /** Aborts the call `key` names, if it runs in this process. */
  cancel(key: InFlightKey, reason: string): void;
};

export type InFlightKey = { principalId: string; connectionId: string; requestId: string | number };

export function createInFlightCalls(): InFlightCalls {
  const calls = new Map<string, AbortController>();
  // JSON-RPC ids are strings or numbers, and "1" is not 1.
  const keyOf = (key: InFlightKey) => JSON.stringify([key.principalId, key.connectionId, typeof key.requestId, String(key.requestId)]);
  return {
    track(key) {
      const name = keyOf(key);
      const controller = new AbortController();
      calls.set(name, controller);
      return {
        signal: controller.signal,
        done: () => {
          if (calls.get(name) === controller) calls.delete(name);
        },
      };
    },
    cancel(key, reason) {
      calls.get(keyOf(key))?.abort(reason);
    },
  };
}
