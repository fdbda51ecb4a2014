import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../config/logger.ts';
import { preparing, type Executor } from '../../db/client.ts';
import * as schema from '../../db/schema/index.ts';
import { auditEntries, organizations, productEvents, projects, threads } from '../../db/schema/index.ts';
import { insertedRow } from '../../db/inserted-row.ts';
import { recordAudit } from '../../services/kernel/audit/index.ts';
import { appendProductEvent, holdProductEvents } from '../../services/kernel/events/index.ts';
import { holdCheck, holdNotice } from '../../services/kernel/pending-writes.ts';
import { sql } from 'drizzle-orm';
import type { Actor, ServiceContext } from '../../services/kernel/service-context.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { withTransaction } from '../../services/kernel/transaction.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * Inserts held for the transaction's event append (services/kernel/pending-writes.ts): audit entries
 * and a new run's message ride in the append's statement; events and checks held for the last statement ride
 * with the idempotency record's claim, so `POST /sessions` is 5 statements.
 */
const logger = createLogger({ level: 'silent' });
let database: TestDatabase;
/** The same database through a client that counts the statements it sends (PostgreSQL only; null on PGlite). */
let counted: { db: Executor; statements: string[]; end(): Promise<void> } | null = null;
let actor: Actor;

beforeAll(async () => {
  database = await createTestDatabase();
  const [organization] = await database.db
    .insert(organizations)
    .values({ slug: `org-${randomUUID()}`, name: 'Held writes' })
    .returning();
  const [project] = await database.db
    .insert(projects)
    .values({ organizationId: organization!.id, slug: `project-${randomUUID()}`, name: 'Held writes' })
    .returning();
  actor = {
    principalId: randomUUID(),
    organizationId: organization!.id,
    projectId: project!.id,
    kind: 'human',
    subject: 'someone',
    scopes: [],
    displayName: null,
    organizationRole: null,
    projectRole: null,
    apiKeyId: null,
  };
  if (database.url) {
    const statements: string[] = [];
    const client = postgres(database.url, {
      max: 1,
      onnotice: () => {},
      types: {},
      debug: (_connection, query) => statements.push(query.trim().split(/\s+/)[0]!),
    });
    await client`select 1`; // the connection's own set-up statements, before any is counted
    counted = { db: drizzle(preparing(client), { schema }) as unknown as Executor, statements, end: () => client.end({ timeout: 5 }) };
  }
});

afterAll(async () => {
  await counted?.end();
  await database?.drop();
});

const context = (db: Executor = database.db): ServiceContext => ({ ...systemContext({ db, logger }), actor });
const auditOf = (targetId: string) => database.db.select().from(auditEntries).where(eq(auditEntries.targetId, targetId));
const eventsOf = (aggregateId: string) => database.db.select().from(productEvents).where(eq(productEvents.aggregateId, aggregateId));
const event = (aggregateId: string) => ({
  organizationId: actor.organizationId,
  projectId: actor.projectId,
  aggregateType: 'thing',
  aggregateId,
  kind: 'thing.changed',
  publicPayload: {},
});

describe('writes held for the event append', () => {
  it('an audit entry commits with the event append, in its statement', async () => {
    const target = randomUUID();
    const ctx = context(counted?.db);
    counted?.statements.splice(0);
    await withTransaction(ctx, async (tx) => {
      await recordAudit(tx, { action: 'thing.changed', targetType: 'thing', targetId: target, details: { why: 'held' } });
      await appendProductEvent(tx, event(target));
    });
    if (counted) expect(counted.statements).toEqual(['begin', 'with', 'commit']);
    expect(await auditOf(target)).toMatchObject([{ action: 'thing.changed', principalId: actor.principalId, details: { why: 'held' } }]);
    expect(await eventsOf(target)).toHaveLength(1);
  });

  it('what no append took is sent before the commit: one entry as itself, several in one statement', async () => {
    const [one, two, three] = [randomUUID(), randomUUID(), randomUUID()];
    const ctx = context(counted?.db);
    counted?.statements.splice(0);
    await withTransaction(ctx, (tx) => recordAudit(tx, { action: 'thing.changed', targetType: 'thing', targetId: one }));
    if (counted) expect(counted.statements).toEqual(['begin', 'insert', 'commit']);
    counted?.statements.splice(0);
    await withTransaction(ctx, async (tx) => {
      await recordAudit(tx, { action: 'thing.changed', targetType: 'thing', targetId: two });
      await recordAudit(tx, { action: 'thing.changed', targetType: 'thing', targetId: three });
    });
    if (counted) expect(counted.statements).toEqual(['begin', 'with', 'commit']);
    for (const target of [one, two, three]) expect(await auditOf(target)).toHaveLength(1);
  });

  it('a rolled-back transaction writes none of them', async () => {
    const target = randomUUID();
    await expect(
      withTransaction(context(), async (tx) => {
        await recordAudit(tx, { action: 'thing.changed', targetType: 'thing', targetId: target });
        await appendProductEvent(tx, event(target));
        await recordAudit(tx, { action: 'thing.changed', targetType: 'thing', targetId: target });
        throw new Error('refused after the append');
      }),
    ).rejects.toThrow('refused after the append');
    expect(await auditOf(target)).toEqual([]);
    expect(await eventsOf(target)).toEqual([]);
  });

  it('a write held through a transaction that has ended throws instead of vanishing', async () => {
    let ended: ServiceContext | null = null;
    await withTransaction(context(), async (tx) => {
      ended = tx;
    });
    await expect(recordAudit(ended!, { action: 'thing.changed', targetType: 'thing', targetId: randomUUID() })).rejects.toThrow(TypeError);
  });

  it('outside a transaction an entry is written at once', async () => {
    const target = randomUUID();
    await recordAudit(context(), { action: 'thing.changed', targetType: 'thing', targetId: target });
    expect(await auditOf(target)).toHaveLength(1);
  });

  it('a held row built by insertedRow is the row the database stores; a default computed at insert must be given', async () => {
    const values = { organizationId: actor.organizationId, projectId: actor.projectId, lastMessageSequence: 1 };
    expect(() => insertedRow(threads, values)).toThrow(/id has a default computed at insert/);
    const row = insertedRow(threads, { ...values, id: randomUUID(), createdAt: new Date() });
    await withTransaction(context(), async (tx) => {
      await tx.db.insert(threads).values(row);
    });
    const [stored] = await database.db.select().from(threads).where(eq(threads.id, row.id));
    expect(stored).toEqual(row);
    expect(row).toMatchObject({ contextTokens: 0, contextThroughSequence: 0 });
  });

  it('a held notice rides in the append and is delivered with the commit, in order; a rollback delivers none', async () => {
    const channel = `held_notice_${randomUUID().replaceAll('-', '')}`;
    const heard: string[] = [];
    const unlisten = await database.listen(channel, (payload) => heard.push(payload));
    try {
      const ctx = context(counted?.db);
      counted?.statements.splice(0);
      await withTransaction(ctx, async (tx) => {
        await holdNotice(tx, { channel, payload: 'first' });
        await holdNotice(tx, { channel, payload: 'second' });
        await appendProductEvent(tx, event(randomUUID()));
        expect(heard).toEqual([]);
      });
      if (counted) expect(counted.statements).toEqual(['begin', 'with', 'commit']);
      const deadline = Date.now() + 10_000;
      while (heard.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toEqual(['first', 'second']);

      // Without an append, the commit's last statement carries it.
      await withTransaction(context(), (tx) => holdNotice(tx, { channel, payload: 'flushed' }));
      await expect(
        withTransaction(context(), async (tx) => {
          await holdNotice(tx, { channel, payload: 'rolled back' });
          await appendProductEvent(tx, event(randomUUID()));
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      await holdNotice(context(), { channel, payload: 'at once' });
      while (heard.length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual(['first', 'second', 'flushed', 'at once']);
    } finally {
      await unlisten();
    }
  });

  it('events held for the last statement go with the held writes and the checks; a check that refuses writes nothing', async () => {
    const [kept, refused] = [randomUUID(), randomUUID()];
    const ctx = context(counted?.db);
    counted?.statements.splice(0);
    const seen: unknown[] = [];
    await withTransaction(ctx, async (tx) => {
      await recordAudit(tx, { action: 'thing.changed', targetType: 'thing', targetId: kept });
      holdProductEvents(tx, {
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        events: [event(kept), event(kept)].map(({ organizationId: _o, projectId: _p, ...draft }) => draft),
      });
      holdCheck(tx, sql`(select count(*)::int from product_events where aggregate_id = ${kept}::uuid)`, (value) => seen.push(value));
    });
    if (counted) expect(counted.statements).toEqual(['begin', 'with', 'commit']);
    // The check reads the statement's snapshot: what was committed before it, not its own rows.
    expect(seen).toEqual([0]);
    expect((await eventsOf(kept)).map((row) => row.aggregateSequence)).toEqual([1, 2]);
    expect(await auditOf(kept)).toHaveLength(1);

    await expect(
      withTransaction(context(), async (tx) => {
        await recordAudit(tx, { action: 'thing.changed', targetType: 'thing', targetId: refused });
        holdProductEvents(tx, {
          organizationId: actor.organizationId,
          projectId: actor.projectId,
          events: [{ aggregateType: 'thing', aggregateId: refused, kind: 'thing.changed', publicPayload: {} }],
        });
        holdCheck(tx, sql`1`, () => {
          throw new Error('over the limit');
        });
      }),
    ).rejects.toThrow('over the limit');
    expect(await eventsOf(refused)).toEqual([]);
    expect(await auditOf(refused)).toEqual([]);

    // Nothing appends after events held for the commit (they would be written out of order).
    await expect(
      withTransaction(context(), async (tx) => {
        holdProductEvents(tx, {
          organizationId: actor.organizationId,
          projectId: actor.projectId,
          events: [{ aggregateType: 'thing', aggregateId: refused, kind: 'thing.changed', publicPayload: {} }],
        });
        await appendProductEvent(tx, event(refused));
      }),
    ).rejects.toThrow(/held for the commit/);
    expect(await eventsOf(refused)).toEqual([]);
  });
});
