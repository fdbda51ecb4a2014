import { useEffect, useRef, useState } from 'react';
import type { ProductEvent, ProjectClient } from '../../../client/src/index.ts';

/**
 * Follows the project's event feed while the screen is open (SSE, resumed with `Last-Event-ID`
 * after a dropped connection by the client) and calls `onEvent` for the events `relevant` picks.
 * `connected` says whether the feed is open now, for the screen's live indicator.
 */
export function useLiveEvents(client: ProjectClient, relevant: (event: ProductEvent) => boolean, onEvent: (event: ProductEvent) => void) {
  const [connected, setConnected] = useState(false);
  const handlers = useRef({ relevant, onEvent });
  handlers.current = { relevant, onEvent };
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const frame of client.events({
          from: 'now',
          signal: stop.signal,
          onConnect: () => setConnected(true),
          onDisconnect: () => setConnected(false),
        })) {
          if (handlers.current.relevant(frame.event)) handlers.current.onEvent(frame.event);
        }
      } catch {
        // Aborted on unmount; the client itself reconnects after network errors.
      }
    })();
    return () => stop.abort();
  }, [client]);
  return connected;
}
