import { takeSseFrames } from '../../domain/sse-frames.ts';

export type FeedFrame = { id: string; kind: string; position: number };

/**
 * An SSE reader of a project's event feed over HTTP: collects each frame's `id`, `event` and
 * `projectPosition` until stopped. With `resume`, a dropped or refused stream is reopened with
 * `Last-Event-ID` of the last frame seen (what an integration does), every `retryMs`.
 */
export function readFeed(options: { baseUrl: string; projectId: string; apiKey: string; lastEventId?: string; resume?: boolean; retryMs?: number }) {
  const frames: FeedFrame[] = [];
  const controller = new AbortController();
  let reconnects = 0;
  const readOnce = async () => {
    const lastEventId = frames.at(-1)?.id ?? options.lastEventId;
    const response = await fetch(`${options.baseUrl}/v1/projects/${options.projectId}/events`, {
      headers: { authorization: `Bearer ${options.apiKey}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal: controller.signal,
    });
    if (response.status !== 200 || !response.body) return;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const taken = takeSseFrames(buffer + decoder.decode(value, { stream: true }));
      buffer = taken.rest;
      for (const frame of taken.frames) {
        if (frame.id && frame.event && frame.data) frames.push({ id: frame.id, kind: frame.event, position: Number(JSON.parse(frame.data).projectPosition) });
      }
    }
  };
  const done = (async () => {
    for (;;) {
      await readOnce().catch(() => {});
      if (!options.resume || controller.signal.aborted) return;
      reconnects += 1;
      await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 250));
    }
  })();
  return {
    frames,
    get reconnects() {
      return reconnects;
    },
    stop: () => controller.abort(),
    done,
  };
}
