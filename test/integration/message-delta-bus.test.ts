import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../config/logger.ts';
import { openDatabase, type DatabaseHandle } from '../../db/client.ts';
import type { StreamingTurnKey } from '../../domain/runs/message-deltas.ts';
import { createMessageDeltaBus, type DeltaFrame, type DeltaSubscription, type MessageDeltaBus } from '../../processes/message-delta-bus.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * The carrier of live model output (issue 30): a worker's bus publishes, an API process's bus
 * keeps each streaming turn's text and fans deltas out per session. Both transports are real:
 * in-process on PGlite, LISTEN/NOTIFY between two buses (two processes' worth of connections) on
 * PostgreSQL when the machine has one.
 */
const logger = createLogger({ level: 'silent' });
const key = (overrides: Partial<StreamingTurnKey> = {}): StreamingTurnKey => ({
  projectId: randomUUID(),
  sessionId: randomUUID(),
  runId: randomUUID(),
  turn: 1,
  attempt: 1,
  ...overrides,
});

/** Reads frames until `done(frames)` holds (or fails after 30 s). */
async function readUntil(subscription: DeltaSubscription, done: (frames: DeltaFrame[]) => boolean): Promise<DeltaFrame[]> {
  const frames: DeltaFrame[] = [];
  const deadline = Date.now() + 30_000;
  while (!done(frames)) {
    if (Date.now() > deadline) throw new Error(`timed out with ${JSON.stringify(frames)}`);
    await Promise.race([subscription.ready(), new Promise((resolve) => setTimeout(resolve, 50))]);
    frames.push(...subscription.take());
  }
  return frames;
}

const textOf = (frames: DeltaFrame[]) => {
  let text = '';
  for (const frame of frames) {
    if (frame.kind === 'reset') text = '';
    else text = text.slice(0, frame.delta.offset) + frame.delta.text;
  }
  return text;
};

describe.each(['in-process (PGlite)', 'LISTEN/NOTIFY (PostgreSQL)'] as const)('the message delta bus, %s', (transport) => {
  let database: DatabaseHandle | TestDatabase;
  let worker: MessageDeltaBus;
  let api: MessageDeltaBus;
  let postgresAvailable = true;

  beforeAll(async () => {
    if (transport === 'in-process (PGlite)') {
      database = await openDatabase({ driver: 'pglite' });
      worker = createMessageDeltaBus({ database, logger });
      api = worker; // one process
    } else {
      database = await createTestDatabase();
      postgresAvailable = database.driver === 'postgres';
      worker = createMessageDeltaBus({ database, logger });
      // The API process: its own bus on its own connections.
      api = createMessageDeltaBus({ database, logger });
    }
    await worker.start();
    if (api !== worker) await api.start();
  });
  afterAll(async () => {
    await worker?.stop();
    if (api !== worker) await api?.stop();
    await ('drop' in database ? database.drop() : database?.close());
  });

  it('delivers a turn in order, and a late reader first gets the whole text so far at offset 0', async () => {
    if (!postgresAvailable) return expect(database.driver).toBe('pglite');
    const turn = key();
    const early = api.subscribe(turn.sessionId);
    const publisher = worker.turn(turn);
    for (const piece of ['Hel', 'lo, ', 'wor']) publisher.text(piece);
    const first = await readUntil(early, (frames) => textOf(frames) === 'Hello, wor');
    expect(first.every((frame) => frame.kind === 'delta')).toBe(true);
    const late = api.subscribe(turn.sessionId);
    publisher.text('ld.');
    const caughtUp = await readUntil(late, (frames) => textOf(frames) === 'Hello, world.');
    expect(caughtUp[0]).toEqual({ kind: 'delta', delta: { runId: turn.runId, turn: 1, attempt: 1, offset: 0, text: expect.stringMatching(/^Hello, wor/) } });
    // The early reader just continues where it was.
    const continued = await readUntil(early, (frames) => frames.length > 0);
    expect(continued).toEqual([{ kind: 'delta', delta: { runId: turn.runId, turn: 1, attempt: 1, offset: 10, text: 'ld.' } }]);
    await publisher.flush();
    publisher.end();
    early.close();
    late.close();
  });

  it('resets an abandoned attempt; the next attempt starts again at offset 0', async () => {
    if (!postgresAvailable) return expect(database.driver).toBe('pglite');
    const turn = key();
    const reader = api.subscribe(turn.sessionId);
    const first = worker.turn(turn);
    first.text('A partial answ');
    await readUntil(reader, (frames) => textOf(frames) === 'A partial answ');
    first.reset();
    const second = worker.turn({ ...turn, attempt: 2 });
    second.text('The answer.');
    const frames = await readUntil(reader, (all) => all.some((frame) => frame.kind === 'reset') && textOf(all) === 'The answer.');
    const resetAt = frames.findIndex((frame) => frame.kind === 'reset');
    expect(frames[resetAt]).toEqual({ kind: 'reset', reset: { runId: turn.runId, turn: 1, attempt: 1 } });
    expect(frames.slice(resetAt + 1)[0]).toMatchObject({ kind: 'delta', delta: { attempt: 2, offset: 0 } });
    reader.close();
  });

  it('treats the same attempt starting over (its activity retried after a crash) as a reset', async () => {
    if (!postgresAvailable) return expect(database.driver).toBe('pglite');
    const turn = key();
    const reader = api.subscribe(turn.sessionId);
    worker.turn(turn).text('Before the crash');
    await readUntil(reader, (frames) => textOf(frames) === 'Before the crash');
    // A new worker process: a fresh publisher for the same attempt.
    worker.turn(turn).text('After');
    const frames = await readUntil(reader, (all) => all.some((frame) => frame.kind === 'reset') && textOf(all) === 'After');
    expect(frames.filter((frame) => frame.kind === 'reset')).toHaveLength(1);
    reader.close();
  });

  it("ignores a dead publisher's late signals once its attempt started over on another worker", async () => {
    if (!postgresAvailable) return expect(database.driver).toBe('pglite');
    const turn = key();
    const reader = api.subscribe(turn.sessionId);
    const dead = worker.turn(turn);
    dead.text('This attempt dies with its worker. ');
    await readUntil(reader, (frames) => textOf(frames) === 'This attempt dies with its worker. ');
    const retried = worker.turn(turn);
    retried.text('Reco');
    await readUntil(reader, (frames) => textOf(frames) === 'Reco');
    // The dead worker's connection still held signals: they arrive after the retry began.
    dead.text('every piece of it is void');
    dead.end();
    retried.text('vered.');
    const after = await readUntil(reader, (frames) => frames.some((frame) => frame.kind === 'delta' && frame.delta.text === 'vered.'));
    expect(after).toEqual([{ kind: 'delta', delta: { runId: turn.runId, turn: 1, attempt: 1, offset: 4, text: 'vered.' } }]);
    // A reader joining now is offered the whole text of the attempt that goes on.
    const late = api.subscribe(turn.sessionId);
    expect(textOf(await readUntil(late, (frames) => frames.length > 0))).toBe('Recovered.');
    reader.close();
    late.close();
  });

  it('drops a slow reader to a catch-up instead of queueing without bound', async () => {
    if (!postgresAvailable) return expect(database.driver).toBe('pglite');
    const turn = key();
    const slow = api.subscribe(turn.sessionId, { maxQueued: 4 });
    slow.take(); // the (empty) initial catch-up
    // A reader that keeps up tells when the API process has received everything.
    const watcher = api.subscribe(turn.sessionId);
    const publisher = worker.turn(turn);
    // One signal each (flushed one by one, so the transport cannot merge them), none read by `slow`.
    for (let i = 0; i < 50; i++) {
      publisher.text(`${i};`);
      await publisher.flush();
    }
    const expected = Array.from({ length: 50 }, (_, i) => `${i};`).join('');
    await readUntil(watcher, (all) => textOf(all) === expected);
    watcher.close();
    const frames = await readUntil(slow, (all) => textOf(all) === expected);
    // It never held more than its bound, and what it got first after falling behind is a catch-up.
    expect(frames.length).toBeLessThanOrEqual(5 + 1);
    expect(frames.some((frame) => frame.kind === 'delta' && frame.delta.offset === 0 && frame.delta.text.length > 10)).toBe(true);
    slow.close();
  });

  it('carries long pieces (split under the NOTIFY limit) and text beyond ASCII exactly', async () => {
    if (!postgresAvailable) return expect(database.driver).toBe('pglite');
    const turn = key();
    const reader = api.subscribe(turn.sessionId);
    const long = 'ÿ€😀 "quoted"\n'.repeat(2_000);
    worker.turn(turn).text(long);
    expect(textOf(await readUntil(reader, (frames) => textOf(frames).length >= long.length))).toBe(long);
    reader.close();
  });

  it('holds a batch that commits a reply until every signal sent before it has been heard (its own mark comes back)', async () => {
    if (!postgresAvailable) return expect(database.driver).toBe('pglite');
    // Between processes, an API bus whose marks are seen arriving: the wait ends because its mark
    // came back, not because the wait for a lost one (2 s) ran out. In one process it needs none.
    const betweenProcesses = transport === 'LISTEN/NOTIFY (PostgreSQL)';
    const marksHeard: string[] = [];
    const listening = !betweenProcesses
      ? api
      : createMessageDeltaBus({
          database: {
            ...database,
            listen: (channel, handler) =>
              database.listen(channel, (payload) => {
                if (channel.includes('_mark_')) marksHeard.push(payload);
                handler(payload);
              }),
          },
          logger,
        });
    if (listening !== api) await listening.start();
    try {
      const turn = key();
      const reader = listening.subscribe(turn.sessionId);
      const publisher = worker.turn(turn);
      const pieces = Array.from({ length: 300 }, (_, i) => `piece ${i}; `);
      for (const piece of pieces) publisher.text(piece);
      await publisher.flush();
      // Only a batch with a reply's message waits (test/integration/live-output-processes.test.ts
      // makes the listener lag to show why).
      expect(
        reader.beforeDurable([
          { kind: 'run.started', publicPayload: {} },
          { kind: 'message.created', publicPayload: { role: 'user' } },
        ]),
      ).toBeNull();
      await reader.beforeDurable([
        { kind: 'run.started', publicPayload: {} },
        { kind: 'message.created', publicPayload: { role: 'assistant' } },
      ]);
      expect(marksHeard).toHaveLength(betweenProcesses ? 1 : 0);
      expect(textOf(reader.take())).toBe(pieces.join(''));
      reader.close();
    } finally {
      if (listening !== api) await listening.stop();
    }
  });

  it('after a stall of its process past the wait for a lost mark, still hands over the signals that arrived meanwhile before the reply', async () => {
    if (!postgresAvailable || transport !== 'LISTEN/NOTIFY (PostgreSQL)') return;
    const turn = key();
    const reader = api.subscribe(turn.sessionId);
    const publisher = worker.turn(turn);
    const pieces = Array.from({ length: 20 }, (_, i) => `piece ${i}; `);
    for (const piece of pieces) publisher.text(piece);
    // The worker's signals are in PostgreSQL; their delivery to the API bus is on its way.
    await publisher.flush();
    const heard = reader.beforeDurable([{ kind: 'message.created', publicPayload: { role: 'assistant' } }])!;
    // Right after the mark went out (the bus sends it from the check phase; this runs next), the
    // process is starved past the 2 s wait (a long GC, a CPU-bound neighbour) while the signals
    // and the mark reach its socket: the expired timer runs before they are read.
    await new Promise((resolve) => setImmediate(resolve));
    const stalledUntil = Date.now() + 2_500;
    while (Date.now() < stalledUntil);
    await heard;
    expect(textOf(reader.take())).toBe(pieces.join(''));
    reader.close();
  });

  it('forgets a turn when its message committed, and leaves no subscriber behind', async () => {
    if (!postgresAvailable) return expect(database.driver).toBe('pglite');
    const turn = key();
    const publisher = worker.turn(turn);
    publisher.text('Done.');
    await publisher.flush();
    publisher.end();
    await publisher.flush();
    // Once the end has arrived, a new reader of the session gets no catch-up of the committed turn.
    const before = api.stats().streamingTurns;
    const deadline = Date.now() + 30_000;
    let frames: DeltaFrame[] = [{ kind: 'reset', reset: { runId: turn.runId, turn: 1, attempt: 1 } }];
    while (frames.length > 0 && Date.now() < deadline) {
      const reader = api.subscribe(turn.sessionId);
      frames = reader.take();
      reader.close();
      if (frames.length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(frames).toEqual([]);
    expect(before).toBeGreaterThanOrEqual(api.stats().streamingTurns);
    expect(api.stats()).toMatchObject({ subscribers: 0, sessions: 0 });
  });
});
