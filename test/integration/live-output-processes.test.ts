import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runWorkflowId } from '../../domain/runs/workflow.ts';
import { FAKE_KEYS, startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { createProcessDatabase, developmentApiKey } from '../support/process-bootstrap.ts';
import { assembledText, assistantMessagesCreated, deltasOf, takeSseFrames, type SseFrame } from '../support/sse-frames.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { killProcess, startApiProcess, startWorkerProcess } from '../support/worker-process.ts';

/**
 * Live output across processes (issue 30, part 5): two API processes and a worker process on one
 * PostgreSQL, deltas carried by LISTEN/NOTIFY. Readers on both APIs see the same deltas; a worker
 * SIGKILLed mid-stream is noticed by its model call's heartbeat timeout, the readers get a reset,
 * the attempt streams again on a new worker, and the run settles within 10 s of that worker
 * being ready, with one assistant message. The second API process reaches PostgreSQL through a
 * TCP proxy, so a test can make its listening connection lag.
 */
const provided = inject('database');
type Api = { url: string; child: ChildProcess };
type Frame = SseFrame;

let fakes: FakeModelServers;
let database: Awaited<ReturnType<typeof createProcessDatabase>>;
let apis: Api[] = [];
let worker: ChildProcess | null = null;
let key = '';
let projectId = '';
let agentId = '';
let env: Record<string, string> = {};
let taskQueue = '';
let proxy: TcpProxy | null = null;
const dataDirs: string[] = [];
const dataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-live-'));
  dataDirs.push(dir);
  return dir;
};

const request = async (api: Api, method: string, pathname: string, body?: unknown) => {
  const response = await fetch(`${api.url}/v1/projects/${projectId}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};

/** A session stream with deltas on `api`, read in the background until `stop()`. */
function readSession(api: Api, sessionId: string) {
  const frames: Frame[] = [];
  const controller = new AbortController();
  const done = (async () => {
    const response = await fetch(`${api.url}/v1/projects/${projectId}/sessions/${sessionId}/events?deltas=true`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return;
      const parsed = takeSseFrames(buffered + decoder.decode(value, { stream: true }));
      buffered = parsed.rest;
      frames.push(...parsed.frames);
    }
  })().catch(() => {});
  return {
    frames,
    async until(predicate: (frames: Frame[]) => boolean, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(frames)) {
        if (Date.now() > deadline) throw new Error(`timed out with ${JSON.stringify(frames.map((frame) => frame.event))}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return frames;
    },
    async stop() {
      controller.abort();
      await done;
    },
  };
}

describe.skipIf(provided.kind !== 'postgres')('live output across processes', () => {
  beforeAll(async () => {
    if (provided.kind !== 'postgres') return;
    fakes = await startFakeModelServers();
    database = await createProcessDatabase(provided, 'live');
    env = { ...fakes.env, SVC_CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    taskQueue = `live-${randomUUID()}`;
    // The API processes first: they migrate the empty database.
    const first = await startApiProcess({ databaseUrl: database.url, taskQueue, dataDir: dataDir(), env });
    const direct = new URL(database.url);
    proxy = await startTcpProxy(`${direct.hostname}:${direct.port || '5432'}`);
    const proxied = new URL(database.url);
    proxied.host = proxy.address;
    const [second, started] = await Promise.all([
      startApiProcess({ databaseUrl: proxied.toString(), taskQueue, dataDir: dataDir(), env }),
      startWorkerProcess({ databaseUrl: database.url, taskQueue, dataDir: dataDir(), env }),
    ]);
    apis = [first, second];
    worker = started;
    ({ key, projectId } = await developmentApiKey(first.url, 'live'));
    const provider = await request(first, 'POST', '/model-providers', {
      key: 'openai',
      displayName: 'OpenAI',
      providerType: 'vendor_a',
      apiKey: FAKE_KEYS.vendor_a,
    });
    expect(provider.status).toBe(201);
    expect(
      (
        await request(second, 'POST', '/model-presets', {
          key: 'fast',
          displayName: 'Fast',
          providerId: provider.body.id,
          model: 'vendor_a/gpt-5.1',
          routing: {},
        })
      ).status,
    ).toBe(201);
    const agent = await request(first, 'POST', '/agents', {
      name: 'Live',
      initialConfig: { systemPrompt: 'Answer.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    agentId = agent.body.id;
  }, 180_000);

  afterAll(async () => {
    for (const child of [...apis.map((api) => api.child), ...(worker ? [worker] : [])]) await killProcess(child);
    await proxy?.close();
    await database?.drop();
    await fakes?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('readers on both API processes see the same deltas from the worker process', async () => {
    const text = 'Written by the worker process, read on two API processes at once, piece by piece.';
    // The answer is held until both readers are connected (each has its first frame), so both
    // see it piece by piece; a fixed delay was outrun on a loaded host (a reader then got the
    // text so far in one catch-up delta).
    let bothConnected!: () => void;
    fakes.vendor_a.reply({ text, chunkSize: 5, chunkDelayMs: 20, heldUntil: new Promise<void>((resolve) => (bothConnected = resolve)) });
    const [api1, api2] = apis as [Api, Api];
    const created = await request(api1, 'POST', '/sessions', { agentId, initialMessage: 'Go.' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const readers = [readSession(api1, created.body.id), readSession(api2, created.body.id)];
    await Promise.all(readers.map((reader) => reader.until((frames) => frames.length > 0)));
    bothConnected();
    const seen = await Promise.all(readers.map((reader) => reader.until((frames) => assistantMessagesCreated(frames).length === 1)));
    await Promise.all(readers.map((reader) => reader.stop()));
    for (const frames of seen) {
      expect(deltasOf(frames).length).toBeGreaterThan(2);
      expect(assembledText(frames)).toBe(text);
    }
    // The same durable frames on both, in the same order, up to the assistant's message.
    const durableUpToReply = (frames: Frame[]) => {
      const durable = frames.filter((frame) => frame.id);
      return durable.slice(0, durable.indexOf(assistantMessagesCreated(durable)[0]!) + 1);
    };
    expect(durableUpToReply(seen[0]!)).toEqual(durableUpToReply(seen[1]!));
  }, 60_000);

  it("a lagging listener: a reply's message waits until its deltas are heard, and goes out after them", async () => {
    const text = 'Heard late by one API process: its readers still get the whole text before the message.';
    fakes.vendor_a.reply({ text, chunkSize: 7, chunkDelayMs: 5 });
    const [api1, api2] = apis as [Api, Api];
    // The second API process hears no signal (deltas, commit hints) until the proxy lets go, while
    // its queries are answered: the lag of a listener on a busy database, made certain.
    proxy!.holdRepliesTo('listen "svc_message_deltas"');
    try {
      const created = await request(api1, 'POST', '/sessions', { agentId, initialMessage: 'Lag.' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      for (let settled = false; !settled; await new Promise((resolve) => setTimeout(resolve, 50))) {
        settled = (await request(api1, 'GET', `/runs/${created.body.latestRunId}`)).body.state === 'completed';
      }
      // A reader from the start reads the committed reply from the database at once; the process
      // has heard none of its text yet, so the message must wait.
      const reader = readSession(api2, created.body.id);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(assistantMessagesCreated(reader.frames)).toEqual([]);
      proxy!.resume();
      const frames = await reader.until((all) => assistantMessagesCreated(all).length === 1);
      await reader.stop();
      const beforeMessage = frames.slice(0, frames.indexOf(assistantMessagesCreated(frames)[0]!));
      expect(deltasOf(beforeMessage).length).toBeGreaterThan(0);
      expect(assembledText(beforeMessage)).toBe(text);
    } finally {
      proxy!.resume();
    }
  }, 60_000);

  it('a worker SIGKILLed mid-stream: reset, the attempt again on a new worker, one message, settled within 10 s of it', async () => {
    const doomed = 'This attempt dies with its worker; every piece of it is void. '.repeat(4);
    fakes.vendor_a.reply({ text: doomed, chunkSize: 3, chunkDelayMs: 100 });
    fakes.vendor_a.reply({ text: 'Recovered on a new worker.', chunkSize: 4, chunkDelayMs: 10 });
    const [api1, api2] = apis as [Api, Api];
    const created = await request(api1, 'POST', '/sessions', { agentId, initialMessage: 'Survive.' });
    const runId = created.body.latestRunId as string;
    const reader = readSession(api2, created.body.id);
    await reader.until((frames) => deltasOf(frames).length >= 3);
    await killProcess(worker!);
    worker = await startWorkerProcess({ databaseUrl: database.url, taskQueue, dataDir: dataDir(), env });
    const available = Date.now();
    let run: any;
    for (;;) {
      run = (await request(api1, 'GET', `/runs/${runId}`)).body;
      if (['completed', 'failed', 'cancelled', 'timed_out'].includes(run.state)) break;
      if (Date.now() - available > 60_000) throw new Error(`run stuck in ${run.state}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const settledAfterMs = Date.now() - available;
    const frames = await reader.until((all) => assistantMessagesCreated(all).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await reader.stop();
    expect(run.state).toBe('completed');
    console.log(`settled ${settledAfterMs} ms after the new worker was ready`);
    // The retried call freed the run from the dead worker's sticky queue: no workflow task waited
    // there until it timed out (docs/decisions/worker-death-recovery.md).
    const connection = await Connection.connect({ address: inject('temporal').address });
    try {
      const history = await new Client({ connection, namespace: inject('temporal').namespace }).workflow.getHandle(runWorkflowId(runId)).fetchHistory();
      const timedOut = (history.events ?? []).filter((event) => event.workflowTaskTimedOutEventAttributes);
      expect(timedOut).toEqual([]);
    } finally {
      await connection.close();
    }
    const resetAt = frames.findIndex((frame) => frame.event === 'message.delta_reset');
    expect(resetAt, JSON.stringify(frames.map((frame) => frame.event))).toBeGreaterThan(0);
    expect(deltasOf(frames.slice(resetAt + 1))[0]).toMatchObject({ offset: 0 });
    expect(assembledText(frames)).toBe('Recovered on a new worker.');
    expect(assistantMessagesCreated(frames)).toHaveLength(1);
    const listed = await request(api1, 'GET', `/runs/${runId}/messages`);
    expect(listed.body.data.filter((message: { role: string }) => message.role === 'assistant').map((message: { text: string }) => message.text)).toEqual([
      'Recovered on a new worker.',
    ]);
  }, 120_000);
});
