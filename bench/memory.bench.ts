/**
 * Listing memories by prefix (issue 48): one store of 10,000 memories under four prefixes (2,500
 * each, about 400 bytes apiece), listed a page of 100 at a time by `pathPrefix` through
 * `listMemories` (one page query over the `(store_id, path)` index with its `COLLATE "C"` range,
 * kept to the project by the memories' own columns; the store is looked up only for an empty
 * page; the public shapes), against a bare postgres.js select of the same page's
 * rows (the same columns, the same prefix and cursor, the same index: its plan is checked). Every
 * page of every prefix is visited in turn, both sides interleaved one operation at a time; p50.
 * Target: at most 2× the bare query.
 *
 *   node_modules/.bin/node bench/memory.bench.ts
 *   BENCH_MEMORIES=50000 node_modules/.bin/node bench/memory.bench.ts
 */
import { createHash, randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import type { Database } from '../db/client.ts';
import { memories, memoryStores, memoryVersions, principals } from '../db/schema/index.ts';
import type { MemoryAuthor } from '../db/schema/memory.ts';
import { listMemories } from '../services/configuration/memory-stores/index.ts';
import type { Actor } from '../services/kernel/service-context.ts';
import { benchContext, percentile, openBenchDatabase, printRecords, withBenchDatabase, type BenchRecord } from './support.ts';

const PREFIXES = ['/customers/', '/projects/', '/notes/2026/', '/runbooks/'];
const PAGE = 100;
const SEED_CHUNK = 1_000;

export async function run(options: { memories?: number; operations?: number } = {}): Promise<BenchRecord[]> {
  const count = options.memories ?? Number(process.env.BENCH_MEMORIES ?? 10_000);
  const operations = options.operations ?? 2_000;
  return withBenchDatabase(async (url) => {
    // One connection on each side, so neither gains from a pool the other lacks.
    const { database, organizationId, createProject } = await openBenchDatabase(url, 1);
    const raw = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const projectId = await createProject();
      const [principal] = await database.db
        .insert(principals)
        .values({ organizationId, projectId, kind: 'api_key', subject: `api_key:${randomUUID()}`, scopes: ['*'] })
        .returning();
      const actor: Actor = {
        principalId: principal!.id,
        organizationId,
        projectId,
        kind: 'api_key',
        subject: principal!.subject,
        scopes: ['*'],
        displayName: null,
        organizationRole: null,
        projectRole: null,
        apiKeyId: null,
      };
      const ctx = { ...benchContext(database), actor };
      const storeId = await seed(database.db, { organizationId, projectId, actor, count });

      // The pages to visit: every page of every prefix, found by walking them once through the service.
      const pages: Array<{ prefix: string; cursor: string | undefined; after: string | null; ids: string[] }> = [];
      for (const prefix of PREFIXES) {
        let cursor: string | undefined;
        let after: string | null = null;
        for (;;) {
          const page = await listMemories({ ctx, input: { storeId, limit: PAGE, pathPrefix: prefix, cursor } });
          const paths = page.data.map((item) => item.path);
          pages.push({ prefix, cursor, after, ids: page.data.map((item) => (item.type === 'memory' ? item.id : item.path)) });
          if (page.pageInfo.nextCursor === null) break;
          cursor = page.pageInfo.nextCursor;
          after = paths.at(-1)!;
        }
      }

      const bareQuery = (prefix: string, after: string | null) =>
        after === null
          ? raw`select * from memories where store_id = ${storeId} and path like ${`${prefix}%`} order by path limit ${PAGE}`
          : raw`select * from memories where store_id = ${storeId} and path like ${`${prefix}%`} and path > ${after} order by path limit ${PAGE}`;
      // The bare side is what the index gives: a range scan of (store_id, path), no sort.
      const plan = (await raw`explain select * from memories where store_id = ${storeId} and path like ${`${PREFIXES[0]}%`} order by path limit ${PAGE}`)
        .map((row) => String(row['QUERY PLAN']))
        .join('\n');
      if (!plan.includes('memories_store_path') || /\bSort\b/.test(plan)) throw new Error(`the bare query does not use the path index:\n${plan}`);
      for (const page of pages.slice(0, 8)) {
        const rows = await bareQuery(page.prefix, page.after);
        if (rows.map((row) => row.id).join() !== page.ids.join()) throw new Error(`the bare query and listMemories disagree on a page of ${page.prefix}`);
      }

      const ours: number[] = [];
      const base: number[] = [];
      const warmUp = Math.min(200, operations / 4);
      for (let i = 0; i < operations + warmUp; i++) {
        const page = pages[i % pages.length]!;
        const t0 = performance.now();
        const rows = await bareQuery(page.prefix, page.after);
        const t1 = performance.now();
        const listed = await listMemories({ ctx, input: { storeId, limit: PAGE, pathPrefix: page.prefix, cursor: page.cursor } });
        const t2 = performance.now();
        if (rows.length !== listed.data.length) throw new Error('the two sides listed different pages');
        if (i >= warmUp) {
          base.push((t1 - t0) * 1000);
          ours.push((t2 - t1) * 1000);
        }
      }
      for (const list of [ours, base]) list.sort((a, b) => a - b);
      const value = percentile(ours, 50);
      const baseline = percentile(base, 50);
      console.log(
        `  ${count.toLocaleString('en')} memories, ${pages.length} pages of ${PAGE}; p95: listMemories ${percentile(ours, 95).toFixed(0)} µs, bare ${percentile(base, 95).toFixed(0)} µs`,
      );
      return [
        {
          name: `listMemories by pathPrefix, a page of ${PAGE} of ${count.toLocaleString('en')} memories, vs a bare indexed select of the same rows (p50)`,
          unit: 'µs/page',
          value,
          baseline,
          ratio: value / baseline,
          target: 2,
          better: 'lower',
        },
      ];
    } finally {
      await raw.end({ timeout: 5 });
      await database.close();
    }
  });
}

/**
 * One store of `count` memories spread over the prefixes, written as the verbs write them (the
 * memory, its `created` version by the principal, the store's counters), in multi-row inserts.
 */
async function seed(db: Database, scope: { organizationId: string; projectId: string; actor: Actor; count: number }): Promise<string> {
  const { organizationId, projectId, actor, count } = scope;
  const author: MemoryAuthor = { type: 'principal', principalId: actor.principalId, apiKeyId: null };
  const [store] = await db.insert(memoryStores).values({ organizationId, projectId, name: 'Bench notes', description: 'Listed by prefix.' }).returning();
  let bytes = 0;
  for (let start = 0; start < count; start += SEED_CHUNK) {
    const memoryRows: Array<typeof memories.$inferInsert> = [];
    const versionRows: Array<typeof memoryVersions.$inferInsert> = [];
    for (let i = start; i < Math.min(count, start + SEED_CHUNK); i++) {
      const prefix = PREFIXES[i % PREFIXES.length]!;
      const path = `${prefix}${String(Math.floor(i / PREFIXES.length)).padStart(5, '0')}-${randomUUID().slice(0, 8)}.md`;
      const content = `# Memory ${i}\n\n${'What we know and what we decided. '.repeat(12)}\n`;
      const sha = createHash('sha256').update(content, 'utf8').digest('hex');
      const size = Buffer.byteLength(content, 'utf8');
      const memoryId = randomUUID();
      const versionId = randomUUID();
      bytes += size;
      versionRows.push({
        id: versionId,
        organizationId,
        projectId,
        storeId: store!.id,
        memoryId,
        operation: 'created',
        path,
        content,
        contentSha256: sha,
        contentSizeBytes: size,
        author,
      });
      memoryRows.push({
        id: memoryId,
        organizationId,
        projectId,
        storeId: store!.id,
        path,
        content,
        contentSha256: sha,
        contentSizeBytes: size,
        versionId,
      });
    }
    await db.insert(memoryVersions).values(versionRows);
    await db.insert(memories).values(memoryRows);
  }
  await db.update(memoryStores).set({ memoryCount: count, sizeBytes: bytes, versionCount: count }).where(eq(memoryStores.id, store!.id));
  // Fresh statistics, as autovacuum would have them on a store written over time.
  await db.execute(sql`analyze memories`);
  return store!.id;
}

if (import.meta.main) {
  printRecords(await run());
}
