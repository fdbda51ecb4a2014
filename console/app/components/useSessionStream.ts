import { useCallback, useEffect, useRef, useState } from 'react';
import { LiveText, type ProductEvent, type ProjectClient } from '../../../client/src/index.ts';
import type { LiveReply } from './liveReplies.ts';

/**
 * Follows one session's own stream while its screen is open, with live output (`deltas`; SSE,
 * resumed with `Last-Event-ID` after a dropped connection by the client): calls `onEvent` for
 * each of the session's durable events and `onConnect` on every (re)connection, and assembles
 * the text of the turns being written (`replies`, exact at every point: a reset empties a turn,
 * a reconnection starts it over with the whole text so far). `forget(runId)` drops a run's live
 * text once the transcript shows its messages. `connected` is for the screen's live indicator.
 */
export function useSessionStream(client: ProjectClient, sessionId: string, handlers: { onEvent: (event: ProductEvent) => void; onConnect: () => void }) {
  const [connected, setConnected] = useState(false);
  const [replies, setReplies] = useState<LiveReply[]>([]);
  const live = useRef(new LiveText());
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    const stop = new AbortController();
    const text = new LiveText();
    live.current = text;
    setReplies([]);
    void (async () => {
      try {
        const frames = client.sessionEvents(sessionId, {
          deltas: true,
          from: 'now',
          signal: stop.signal,
          onConnect: () => {
            setConnected(true);
            current.current.onConnect();
          },
          onDisconnect: () => setConnected(false),
        });
        for await (const frame of frames) {
          if (frame.type === 'event') {
            current.current.onEvent(frame.event);
            continue;
          }
          text.apply(frame);
          setReplies(text.entries());
        }
      } catch {
        // Aborted on unmount; the client itself reconnects after network errors.
      }
    })();
    return () => stop.abort();
  }, [client, sessionId]);
  const forget = useCallback((runId: string) => {
    live.current.forget(runId);
    setReplies(live.current.entries());
  }, []);
  return { connected, replies, forget };
}
