import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../config/logger.ts';
import { rowsOf } from '../../db/client.ts';
import { organizations, productEvents, projectEventCounters, projects } from '../../db/schema/index.ts';
import { type ServiceContext, systemContext } from '../../services/kernel/service-context.ts';
import { appendProductEvent, appendProductEvents } from '../../services/kernel/events/index.ts';
import { createProjectEventTail, type EventSubscription } from '../../processes/project-event-tail.ts';
import { latestProjectPosition, readProductEvents } from '../../services/kernel/events/index.ts';
import { withTransaction } from '../../services/kernel/transaction.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const logger = createLogger({ level: 'silent' });
let database: TestDatabase;
let organizationId: string;

beforeAll(async () => {
  database = await createTestDatabase({ maxConnections: 12 });
  const [organization] = await database.db
    .insert(organizations)
    .values({ slug: `org-${randomUUID()}`, name: 'Event log' })
    .returning();
  organizationId = organization!.id;
});

afterAll(async () => {
  await database?.drop();
});

async function createProject(): Promise<string> {
  const [project] = await database.db
    .insert(projects)
    .values({ organizationId, slug: `project-${randomUUID()}`, name: 'Event log' })
    .returning();
  return project!.id;
}

function serviceContext(): ServiceContext {
  return systemContext({ db: database.db, logger });
}

/** One writer: `count` appends, each in its own transaction, over its aggregates round-robin. */
async function write(projectId: string, aggregateIds: string[], count: number, writer: number) {
  const appended = [];
  for (let i = 0; i < count; i++) {
    appended.push(
      await appendProductEvent(serviceContext(), {
        organizationId,
        projectId,
        aggregateType: 'run',
        aggregateId: aggregateIds[i % aggregateIds.length]!,
        kind: 'run.progressed',
        publicPayload: { writer, i },
      }),
    );
  }
  return appended;
}

async function allEvents(projectId: string) {
  return database.db.select().from(productEvents).where(eq(productEvents.projectId, projectId)).orderBy(asc(productEvents.projectPosition));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('product event log', () => {
  it('allocates gap-free positions and per-aggregate sequences under concurrent writers', async () => {
    const projectId = await createProject();
    const shared = randomUUID();
    // Writers 0-1 own one aggregate; 2-4 spread over several, one of them shared by all three.
    const aggregatesOf = [[randomUUID()], [randomUUID()], [shared, randomUUID()], [shared, randomUUID(), randomUUID()], [shared]];
    const results = await Promise.all(aggregatesOf.map((aggregates, writer) => write(projectId, aggregates, 200, writer)));

    const rows = await allEvents(projectId);
    expect(rows.map((row) => Number(row.projectPosition))).toEqual(range(1, 1000));
    expect(await latestProjectPosition({ db: database.db, input: { projectId } })).toBe(1000n);

    const sequences = new Map<string, number[]>();
    for (const row of rows) sequences.set(row.aggregateId, [...(sequences.get(row.aggregateId) ?? []), row.aggregateSequence]);
    expect(sequences.get(shared)!.length).toBe(100 + 67 + 200);
    for (const [, seen] of sequences) expect(seen).toEqual(range(1, seen.length));

    // Each writer's own appends got increasing positions, and the public events match the rows.
    for (const appended of results) {
      const positions = appended.map((event) => Number(event.projectPosition));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
    const first = results[0]![0]!;
    const stored = rows.find((row) => row.id === first.id)!;
    expect(first).toEqual({
      id: stored.id,
      organizationId,
      projectId,
      aggregateType: 'run',
      aggregateId: stored.aggregateId,
      aggregateSequence: stored.aggregateSequence,
      projectPosition: stored.projectPosition.toString(),
      kind: 'run.progressed',
      publicPayload: { writer: 0, i: 0 },
      occurredAt: stored.occurredAt.toISOString(),
    });
  });

  it('appends a batch in order with contiguous positions and per-aggregate sequences', async () => {
    const projectId = await createProject();
    const [a, b] = [randomUUID(), randomUUID()];
    await write(projectId, [a], 2, 0);
    const batch = await appendProductEvents(serviceContext(), {
      organizationId,
      projectId,
      events: [a, b, a, b, a].map((aggregateId, i) => ({
        aggregateType: 'run',
        aggregateId,
        kind: 'message.created',
        publicPayload: { i },
        message: { id: randomUUID(), role: 'user', content: 'hello' },
      })),
    });
    expect(batch.map((event) => [event.projectPosition, event.aggregateId, event.aggregateSequence, event.publicPayload])).toEqual([
      ['3', a, 3, { i: 0 }],
      ['4', b, 1, { i: 1 }],
      ['5', a, 4, { i: 2 }],
      ['6', b, 2, { i: 3 }],
      ['7', a, 5, { i: 4 }],
    ]);
    // Message content is stored but not part of the returned public event.
    expect(batch[0]).not.toHaveProperty('message');
    const rows = await readProductEvents({ db: database.db, input: { projectId, afterPosition: 2n, limit: 10 } });
    expect(rows.map((row) => row.message?.content)).toEqual(['hello', 'hello', 'hello', 'hello', 'hello']);
  });

  it('leaves no gap when an appending transaction rolls back, even with a writer waiting on it', async () => {
    const projectId = await createProject();
    await write(projectId, [randomUUID()], 1, 0);

    let releaseRollback!: () => void;
    let appended = false;
    const rolledBack = withTransaction(serviceContext(), async (tx) => {
      await appendProductEvent(tx, { organizationId, projectId, aggregateType: 'run', aggregateId: randomUUID(), kind: 'run.created', publicPayload: {} });
      appended = true;
      await new Promise<void>((resolve) => (releaseRollback = resolve));
      throw new Error('abandon');
    });
    await vi.waitFor(() => expect(appended).toBe(true), { timeout: 10_000 });
    // This writer blocks on the counter row lock held by the transaction above (seen waiting for a
    // lock in this database, where a server runs; PGlite has one connection: the writer waits for it).
    const waiting = write(projectId, [randomUUID()], 1, 1);
    if (database.driver === 'postgres') {
      const lockWaits = sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
      await vi.waitFor(async () => expect(rowsOf(await database.db.execute(lockWaits)).length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    } else await sleep(100);
    releaseRollback();
    await expect(rolledBack).rejects.toThrow('abandon');
    const [after] = await waiting;

    expect(after!.projectPosition).toBe('2');
    expect((await allEvents(projectId)).map((row) => Number(row.projectPosition))).toEqual([1, 2]);
    const [counter] = await database.db.select().from(projectEventCounters).where(eq(projectEventCounters.projectId, projectId));
    expect(counter!.lastPosition).toBe(2n);
  });

  it('refuses a malformed event before touching the database', async () => {
    const projectId = await createProject();
    await expect(
      appendProductEvent(serviceContext(), { organizationId, projectId, aggregateType: 'run', aggregateId: 'nope', kind: 'run.created', publicPayload: {} }),
    ).rejects.toThrow(/Invalid product event: events.0.aggregateId/);
    expect(await latestProjectPosition({ db: database.db, input: { projectId } })).toBe(0n);
  });
});

describe('project event tail', () => {
  /** Drains a subscription until `last`, returning every position seen in arrival order. */
  async function collect(subscription: EventSubscription, last: number, delayMs = 0): Promise<number[]> {
    const seen: number[] = [];
    for await (const batch of subscription) {
      for (const row of batch) seen.push(Number(row.projectPosition));
      if (delayMs > 0) await sleep(delayMs);
      if (seen.at(-1)! >= last) break;
    }
    return seen;
  }

  it('delivers every later position exactly once, in order, to subscribers joining mid-stream', async () => {
    const projectId = await createProject();
    const tail = createProjectEventTail({ database, logger, pollIntervalMs: 500, pageSize: 25, maxBufferedEvents: 40 });
    await tail.start();
    try {
      await write(projectId, [randomUUID()], 50, 9);
      const total = 50 + 4 * 100;
      const writers = Promise.all(range(0, 3).map((writer) => write(projectId, [randomUUID(), randomUUID()], 100, writer)));

      const readers: Array<Promise<{ start: number; seen: number[] }>> = [];
      const join = async (start: number, delayMs = 0) => {
        const subscription = await tail.subscribe(projectId, BigInt(start));
        readers.push(collect(subscription, total, delayMs).then((seen) => ({ start, seen })));
      };
      // One slow consumer from the beginning: it must overflow its 40-event buffer and re-read.
      await join(0, 30);
      for (let i = 0; i < 36; i++) {
        const latest = Number(await latestProjectPosition({ db: database.db, input: { projectId } }));
        // Anywhere from the beginning to slightly past the committed tail.
        await join(Math.min(Math.floor(Math.random() * (latest + 5)), total - 1));
        await sleep(Math.random() * 15);
      }
      await writers;

      const results = await Promise.all(readers);
      expect(results).toHaveLength(37);
      for (const { start, seen } of results) expect(seen).toEqual(range(start + 1, total));
      // Every reader broke out of its loop, which unsubscribes: the fetcher is gone too.
      expect(tail.stats()).toMatchObject({ projects: 0, subscribers: 0 });
    } finally {
      await tail.stop();
    }
  });

  it('drops a consumer that stops reading to the database, then delivers it everything once', async () => {
    const projectId = await createProject();
    const tail = createProjectEventTail({ database, logger, pageSize: 30, maxBufferedEvents: 40 });
    await tail.start();
    try {
      const stalled = await tail.subscribe(projectId, 0n);
      const punctual = await tail.subscribe(projectId, 0n);
      const punctualSeen = collect(punctual, 100);
      await write(projectId, [randomUUID()], 100, 0);
      expect(await punctualSeen).toEqual(range(1, 100));
      // The stalled subscriber never pulled: its buffer overflowed and was dropped.
      expect(tail.stats().droppedToDatabase).toBeGreaterThan(0);
      const stalledSeen = collect(stalled, 103);
      await write(projectId, [randomUUID()], 3, 1);
      expect(await stalledSeen).toEqual(range(1, 103));
    } finally {
      await tail.stop();
    }
  });

  it('still delivers when notifications are lost, through the safety poll', async () => {
    const projectId = await createProject();
    const deaf = { ...database, listen: async () => async () => {} };
    const tail = createProjectEventTail({ database: deaf, logger, pollIntervalMs: 100 });
    await tail.start();
    try {
      const subscription = await tail.subscribe(projectId, 0n);
      const received = collect(subscription, 3);
      await sleep(150);
      await write(projectId, [randomUUID()], 3, 0);
      expect(await received).toEqual([1, 2, 3]);
    } finally {
      await tail.stop();
    }
  });

  it('tells watchers of commits without reading events, also when a notification is lost', async () => {
    const projectId = await createProject();
    const other = await createProject();
    // Statements sent through the tail's database handle: a watch must read no event.
    let statements = 0;
    const counting = { ...database, db: new Proxy(database.db, { get: (target, key, receiver) => (statements++, Reflect.get(target, key, receiver)) }) };
    const tail = createProjectEventTail({ database: counting, logger, pollIntervalMs: 60_000 });
    await tail.start();
    try {
      let commits = 0;
      const watch = tail.watch(projectId, () => commits++);
      expect(tail.stats()).toMatchObject({ projects: 0, subscribers: 0 });
      const before = statements;
      await write(projectId, [randomUUID()], 1, 0);
      await write(other, [randomUUID()], 1, 0);
      await vi.waitFor(() => expect(commits).toBe(1), { timeout: 10_000 });
      expect(statements).toBe(before);
      watch.close();
      await write(projectId, [randomUUID()], 1, 0);
      await sleep(100);
      expect(commits).toBe(1);
    } finally {
      await tail.stop();
    }

    // Notifications lost: the safety poll notices the project moved past what it saw.
    const deaf = { ...database, listen: async () => async () => {} };
    const polled = createProjectEventTail({ database: deaf, logger, pollIntervalMs: 100 });
    await polled.start();
    try {
      let commits = 0;
      polled.watch(projectId, () => commits++);
      await sleep(250);
      expect(commits).toBe(0);
      // The poll's first look sets where the project stands; a write before it is its baseline, so
      // the project moves again until a poll notices (not once, after a sleep that hopes it looked).
      await vi.waitFor(
        async () => {
          await write(projectId, [randomUUID()], 1, 0);
          expect(commits).toBeGreaterThanOrEqual(1);
        },
        { timeout: 10_000, interval: 300 },
      );
    } finally {
      await polled.stop();
    }
  });

  it('ends open subscriptions on close and on stop', async () => {
    const projectId = await createProject();
    const tail = createProjectEventTail({ database, logger });
    await tail.start();
    const closed = await tail.subscribe(projectId, 0n);
    const stopped = await tail.subscribe(projectId, 0n);
    const closedDone = collect(closed, Number.MAX_SAFE_INTEGER);
    const stoppedDone = collect(stopped, Number.MAX_SAFE_INTEGER);
    expect(tail.stats()).toMatchObject({ projects: 1, subscribers: 2 });
    closed.close();
    expect(await closedDone).toEqual([]);
    expect(tail.stats()).toMatchObject({ projects: 1, subscribers: 1 });
    await tail.stop();
    expect(await stoppedDone).toEqual([]);
    expect(tail.stats()).toMatchObject({ projects: 0, subscribers: 0 });
    await expect(tail.subscribe(projectId, 0n)).rejects.toThrow(/not started/);
  });
});
