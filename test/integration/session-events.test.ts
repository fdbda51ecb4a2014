import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productEvents } from '../../db/schema/index.ts';
import { decodeEventCursor } from '../../domain/event-cursor.ts';
import { startRunApp } from '../support/run-app.ts';
import { takeSseFrames, type SseFrame } from '../support/sse-frames.ts';

/**
 * `GET /projects/{projectId}/sessions/{sessionId}/events` (issue 30, part 3): one session's
 * durable events with the project feed's frames and cursors, `Last-Event-ID` resume and
 * `once=true`, read through the session index. Real sessions and runs (worker, fake vendor).
 */
type Frame = SseFrame;

let app: Awaited<ReturnType<typeof startRunApp>>;
let readKey: string;
let agentId: string;

beforeAll(async () => {
  app = await startRunApp();
  readKey = (await app.t.createApiKey(['run:read'])).secret;
  const agent = await app.call('POST', '/agents', {
    name: 'Streamer',
    initialConfig: { systemPrompt: 'Be brief.', modelPreset: 'fast', limits: { maxTurns: 4 } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  agentId = agent.body.id;
});
afterAll(() => app?.close());

const parseFrames = (text: string): Frame[] => takeSseFrames(text.endsWith('\n\n') ? text : `${text}\n\n`).frames;

const stream = (path: string, headers: Record<string, string> = {}, apiKey = readKey) =>
  app.t.request('GET', `/v1/projects/${app.projectId}${path}`, { apiKey, headers: { accept: 'text/event-stream', ...headers } });

async function page(path: string, headers: Record<string, string> = {}): Promise<Frame[]> {
  const response = await stream(path, headers);
  expect(response.status, await response.clone().text()).toBe(200);
  return parseFrames(await response.text());
}

/** A session whose first run has settled. */
async function settledSession(message: string): Promise<{ sessionId: string; runId: string }> {
  const created = await app.call('POST', '/sessions', { agentId, initialMessage: message });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await app.waitForRun(created.body.latestRunId);
  return { sessionId: created.body.id, runId: created.body.latestRunId };
}

const sessionIdOf = (frame: Frame) => {
  const payload = JSON.parse(frame.data!).publicPayload as Record<string, unknown>;
  return payload.sessionId;
};

describe('the session event stream', () => {
  it("carries exactly the session's events, with the project feed's ids, kinds and data", async () => {
    const first = await settledSession('First session');
    const second = await settledSession('Second session');

    const project = await page('/events?once=true&limit=1000');
    const own = await page(`/sessions/${first.sessionId}/events?once=true&limit=1000`);
    expect(own.length).toBeGreaterThan(4);
    // Every frame of the session stream is the very frame of the project feed.
    const projectById = new Map(project.map((frame) => [frame.id, frame]));
    for (const frame of own) expect(projectById.get(frame.id)).toEqual(frame);
    // ... and the session stream holds every project frame that names the session.
    const expected = project.filter((frame) => sessionIdOf(frame) === first.sessionId).map((frame) => frame.id);
    expect(own.map((frame) => frame.id)).toEqual(expected);
    expect(own.map((frame) => frame.event)).toEqual(
      expect.arrayContaining(['session.created', 'run.queued', 'run.running', 'message.created', 'run.completed']),
    );
    expect(own.some((frame) => sessionIdOf(frame) === second.sessionId)).toBe(false);
    // Ordered by position, like the project feed.
    const positions = own.map((frame) => decodeEventCursor(frame.id!, app.projectId));
    expect([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(positions);
  });

  it('resumes after Last-Event-ID or a cursor from the project feed, and pages with once=true', async () => {
    const { sessionId } = await settledSession('Resume me');
    const all = await page(`/sessions/${sessionId}/events?once=true`);
    const firstTwo = await page(`/sessions/${sessionId}/events?once=true&limit=2`);
    expect(firstTwo).toEqual(all.slice(0, 2));
    const rest = await page(`/sessions/${sessionId}/events?once=true`, { 'last-event-id': firstTwo[1]!.id! });
    expect(rest).toEqual(all.slice(2));
    // A cursor of the project feed (any position, even one of another session) works here too.
    const projectFrames = await page('/events?once=true&limit=1000');
    const before = projectFrames.find((frame) => frame.id === all[2]!.id);
    const previous = projectFrames[projectFrames.indexOf(before!) - 1]!;
    expect(await page(`/sessions/${sessionId}/events?once=true&cursor=${encodeURIComponent(previous.id!)}`)).toEqual(all.slice(2));
  });

  it('follows new commits live and ends when the client leaves', async () => {
    const { sessionId } = await settledSession('Live one');
    const response = await stream(`/sessions/${sessionId}/events?from=now`);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // Another session's turn first: nothing of it may reach this stream.
    const other = await settledSession('Noise elsewhere');
    const turn = await app.call('POST', `/sessions/${sessionId}/runs`, { message: 'And again' });
    expect(turn.status, JSON.stringify(turn.body)).toBe(202);
    let text = '';
    const deadline = Date.now() + 20_000;
    while (!text.includes('event: run.completed')) {
      if (Date.now() > deadline) throw new Error(`no run.completed in ${text}`);
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    const frames = parseFrames(text);
    expect(frames.map((frame) => frame.event)).toEqual(expect.arrayContaining(['run.queued', 'message.created', 'run.completed']));
    expect(frames.every((frame) => sessionIdOf(frame) === sessionId)).toBe(true);
    expect(frames.some((frame) => JSON.stringify(frame).includes(other.sessionId))).toBe(false);
    // Durable frames never carry message content.
    expect(text).not.toContain('And again');
    const deadlineUnsubscribed = Date.now() + 30_000;
    while (app.t.deps.eventTail.stats().subscribers > 0 && Date.now() < deadlineUnsubscribed) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(app.t.deps.eventTail.stats().subscribers).toBe(0);
  });

  it('catches up through the session index, without reading the rest of the log', async () => {
    const { sessionId } = await settledSession('Indexed');
    // Every session-scoped event is stored with its session; project-level ones (agents) are not.
    const untagged = await app.t.database.db
      .select({ kind: productEvents.kind })
      .from(productEvents)
      .where(and(eq(productEvents.projectId, app.projectId), isNull(productEvents.sessionId)));
    expect(untagged.map((row) => row.kind).filter((kind) => !kind.startsWith('agent.') && !kind.startsWith('skill.'))).toEqual([]);
    // A live stream from the beginning sends the session's history first (its own catch-up read).
    const response = await stream(`/sessions/${sessionId}/events`);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: run.completed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    expect(parseFrames(text).map((frame) => frame.id)).toEqual(
      (await page(`/sessions/${sessionId}/events?once=true`)).map((frame) => frame.id).slice(0, parseFrames(text).length),
    );
  });

  it('refuses an unknown session (404), a bad id or query (400) and a missing scope (403)', async () => {
    expect((await stream(`/sessions/${randomUUID()}/events?once=true`)).status).toBe(404);
    expect((await stream('/sessions/not-a-uuid/events?once=true')).status).toBe(400);
    const { sessionId } = await settledSession('Guarded');
    const noRead = (await app.t.createApiKey(['session:write'])).secret;
    expect((await stream(`/sessions/${sessionId}/events?once=true`, {}, noRead)).status).toBe(403);
    expect((await stream(`/sessions/${sessionId}/events?once=maybe`)).status).toBe(400);
  });
});
