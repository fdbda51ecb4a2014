import type Anthropic from '@anthropic-ai/sdk';

/**
 * The official Anthropic SDK's traffic in tests of the Anthropic-compatible API: every request it
 * makes is recorded (so retries are counted), and the response of a chosen request can be lost
 * after the server answered it (the SDK then retries).
 */
export type SentRequest = { method: string; url: string; retry: string | null };

export function recordSdkRequests() {
  const sent: SentRequest[] = [];
  let loseResponseOf: ((request: Request) => boolean) | null = null;
  const recordingFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, url: request.url, retry: request.headers.get('x-stainless-retry-count') });
    if (loseResponseOf?.(request)) {
      loseResponseOf = null;
      await (await fetch(input, init)).text();
      throw new TypeError('fetch failed: the connection was reset');
    }
    // The SDK's own arguments: a Request built from them carries a copy of the abort signal that
    // Node's fetch can lose to garbage collection (nodejs/node#55428), and an aborted stream read
    // then never ends (a runner that never stops).
    return fetch(input, init);
  };
  return {
    sent,
    fetch: recordingFetch,
    /** The next request `matches` accepts is served, then its connection "fails". */
    loseResponseOf: (matches: (request: Request) => boolean) => {
      loseResponseOf = matches;
    },
    /** What `run` ended with, and how many requests the SDK made for it (retries included). */
    counted: async <T>(run: () => Promise<T>): Promise<{ result: T | undefined; error: unknown; attempts: number }> => {
      const before = sent.length;
      try {
        const result = await run();
        return { result, error: undefined, attempts: sent.length - before };
      } catch (error) {
        return { result: undefined, error, attempts: sent.length - before };
      }
    },
  };
}

/** A session's events, listed until `count` of `type` are there (30 s at most). */
export async function untilEvent(client: Anthropic, sessionId: string, type: string, count = 1) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = [];
    for await (const event of client.beta.sessions.events.list(sessionId)) events.push(event);
    if (events.filter((event) => event.type === type).length >= count) return events;
    if (Date.now() > deadline) throw new Error(`no ${type} in ${JSON.stringify(events.map((event) => event.type))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
