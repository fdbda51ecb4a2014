import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, memoryStores, memoryVersions } from '../../db/schema/index.ts';
import { answerMemoryTool } from '../../services/configuration/memory-stores/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { createTestApp, type TestApp, type TestResponse } from '../support/app.ts';

/**
 * Memory stores through the native API (docs/memory.md): stores, memories addressed by path,
 * a version per change with content-hash preconditions, redaction, archive and delete, scopes and
 * the project boundary.
 */
let t: TestApp;
let projectId: string;
let otherProjectId: string;
let writer: string;
let reader: string;
let outsider: string;
let cookie: string;
let organizationId: string;

beforeAll(async () => {
  t = await createTestApp();
  const login = await t.login();
  cookie = login.cookie;
  const { context } = login;
  organizationId = context.organization.id;
  projectId = context.project.id;
  writer = (await t.createApiKey(['memory:read', 'memory:write', 'run:read'], 'memory writer')).secret;
  reader = (await t.createApiKey(['memory:read'], 'memory reader')).secret;
  const other = await t.request('POST', '/v1/projects', { cookie, body: { slug: 'memory-other', name: 'Other' } });
  expect(other.status).toBe(201);
  otherProjectId = (await other.json()).id;
  // API keys are the organization's: the same key addresses either project by its URL.
  outsider = (await t.createApiKey(['*'], 'both projects')).secret;
});
afterAll(() => t.close());

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const stores = (project = projectId) => `/v1/projects/${project}/memory-stores`;
const call = async (method: string, path: string, body?: unknown, apiKey = writer) => {
  const response: TestResponse = await t.request(method, path, { apiKey, body });
  return { status: response.status, body: await response.json() };
};
const ok = async (answer: Promise<{ status: number; body: any }>, status = 200) => {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
};
/** The project's feed so far (its SSE frames' data). */
async function feed(): Promise<Array<{ kind: string; aggregateId: string; publicPayload: Record<string, any> }>> {
  const response = await t.request('GET', `/v1/projects/${projectId}/events?once=true&limit=1000`, { apiKey: writer });
  expect(response.status).toBe(200);
  return [...(await response.text()).matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!));
}
async function newStore(name = 'Customer notes') {
  return ok(call('POST', stores(), { name, description: 'What we know about each customer.', metadata: { team: 'support' } }), 201);
}

describe('memory stores', () => {
  it('creates, reads, lists, updates, archives and deletes a store, each change an event and an audit entry', async () => {
    const store = await newStore('Customer notes (EU)');
    expect(store).toMatchObject({
      name: 'Customer notes (EU)',
      mountPath: '/mnt/memory/customer-notes-eu/',
      memoryCount: 0,
      sizeBytes: 0,
      versionCount: 0,
      archivedAt: null,
    });
    expect(await ok(call('GET', `${stores()}/${store.id}`, undefined, reader))).toEqual(store);
    const listed = await ok(call('GET', stores(), undefined, reader));
    expect(listed.data.map((entry: { id: string }) => entry.id)).toContain(store.id);

    const updated = await ok(call('PATCH', `${stores()}/${store.id}`, { description: 'Notes.', metadata: { team: null, region: 'eu' } }));
    expect(updated).toMatchObject({ name: 'Customer notes (EU)', description: 'Notes.', metadata: { region: 'eu' } });

    const archived = await ok(call('POST', `${stores()}/${store.id}/archive`));
    expect(archived.archivedAt).not.toBeNull();
    // Archived: read-only, left out of lists unless asked for.
    expect((await call('PATCH', `${stores()}/${store.id}`, { name: 'x' })).status).toBe(409);
    expect((await call('POST', `${stores()}/${store.id}/memories`, { path: '/a.md', content: 'x' })).status).toBe(409);
    expect((await ok(call('GET', stores()))).data.map((entry: { id: string }) => entry.id)).not.toContain(store.id);
    expect((await ok(call('GET', `${stores()}?includeArchived=true`))).data.map((entry: { id: string }) => entry.id)).toContain(store.id);

    expect(await ok(call('DELETE', `${stores()}/${store.id}`))).toEqual({ id: store.id, deleted: true });
    expect((await call('GET', `${stores()}/${store.id}`)).status).toBe(404);
    expect((await call('DELETE', `${stores()}/${store.id}`)).status).toBe(404);

    const kinds = (await feed()).filter((event: any) => event.aggregateId === store.id).map((event: any) => event.kind);
    expect(kinds).toEqual(['memory_store.created', 'memory_store.updated', 'memory_store.archived', 'memory_store.deleted']);
    const audit = await t.database.db.select().from(auditEntries).where(eq(auditEntries.targetId, store.id));
    expect(audit.map((entry) => entry.action).sort()).toEqual([
      'memory_store.archived',
      'memory_store.created',
      'memory_store.deleted',
      'memory_store.updated',
    ]);
  });

  it('refuses every invalid field with a 400 naming it, and writes nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(256) }, 'body.name'],
      [{ name: 'a\u0007b' }, 'body.name'],
      [{ name: 'ok', description: 'd'.repeat(1025) }, 'body.description'],
      [{ name: 'ok', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'body.metadata'],
      [{ name: 'ok', metadata: { ['k'.repeat(65)]: 'v' } }, 'body.metadata'],
      [{ name: 'ok', metadata: { k: 'v'.repeat(513) } }, 'body.metadata.k'],
      [{ name: 'ok', extra: 1 }, 'body.extra'],
    ];
    const before = (await ok(call('GET', `${stores()}?limit=200&includeArchived=true`))).data.length;
    for (const [body, path] of cases) {
      const answer = await call('POST', stores(), body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.details.path, JSON.stringify(answer.body)).toMatch(new RegExp(`^${path.replace('.', '\\.')}`));
    }
    expect((await ok(call('GET', `${stores()}?limit=200&includeArchived=true`))).data.length).toBe(before);

    const store = await newStore();
    const paths: Array<[string, string]> = [
      ['notes.md', 'must start with "/"'],
      ['/', 'empty segment'],
      ['/a//b', 'empty segment'],
      ['/a/', 'empty segment'],
      ['/a/./b', '"." or ".."'],
      ['/a/../b', '"." or ".."'],
      ['/a\u0000b', 'holds text that contains a'], // the body-wide NUL rule answers first
      ['/a\u200bb', 'format'],
      ['/a\u2028b', 'control or format'],
      ['/cafe\u0301', 'Normalization Form C'],
      [`/${Array.from({ length: 21 }, () => 's').join('/')}`, '20 segments'],
      [`/${'x'.repeat(1024)}`, '1024 bytes'],
    ];
    for (const [path, why] of paths) {
      const answer = await call('POST', `${stores()}/${store.id}/memories`, { path, content: 'x' });
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.details.path).toBe('body.path');
      expect(answer.body.error.message).toContain(why);
    }
    const big = await call('POST', `${stores()}/${store.id}/memories`, { path: '/big.md', content: 'é'.repeat(51_201) });
    expect(big.status).toBe(400);
    expect(big.body.error.details.path).toBe('body.content');
    expect((await call('PATCH', `${stores()}/${store.id}/memories/${crypto.randomUUID()}`, {})).status).toBe(400);
    expect((await call('GET', `${stores()}/${store.id}/memories?pathPrefix=/notes`)).body.error.details.path).toBe('query.pathPrefix');
    expect((await call('DELETE', `${stores()}/${store.id}/memories/${crypto.randomUUID()}?expectedContentSha256=abc`)).body.error.details.path).toBe(
      'query.expectedContentSha256',
    );
    expect((await ok(call('GET', `${stores()}/${store.id}`))).versionCount).toBe(0);
  });

  it('keeps a version per change; a stale precondition is a 409 and loses nothing', async () => {
    const store = await newStore();
    const memories = `${stores()}/${store.id}/memories`;
    const created = await ok(call('POST', memories, { path: '/customers/acme.md', content: 'Prefers email.' }), 201);
    expect(created).toMatchObject({ path: '/customers/acme.md', content: null, contentSha256: sha('Prefers email.'), contentSizeBytes: 14 });
    expect((await ok(call('GET', `${memories}/${created.id}`, undefined, reader))).content).toBe('Prefers email.');

    // Two writers read the same content; the first update wins, the second's precondition is stale.
    const first = await ok(
      call('PATCH', `${memories}/${created.id}?view=full`, {
        content: 'Prefers email. Renewal in March.',
        precondition: { type: 'content_sha256', contentSha256: created.contentSha256 },
      }),
    );
    expect(first.content).toBe('Prefers email. Renewal in March.');
    const stale = await call('PATCH', `${memories}/${created.id}`, {
      content: 'Prefers phone.',
      precondition: { type: 'content_sha256', contentSha256: created.contentSha256 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details.reason).toBe('memory_precondition_failed');
    // The same write again (a retry of the one that landed) succeeds without a new version.
    const retried = await ok(
      call('PATCH', `${memories}/${created.id}`, {
        content: 'Prefers email. Renewal in March.',
        precondition: { type: 'content_sha256', contentSha256: created.contentSha256 },
      }),
    );
    expect(retried.versionId).toBe(first.versionId);

    // A rename keeps the id; a delete with a stale hash is refused, with the right one it lands.
    const renamed = await ok(call('PATCH', `${memories}/${created.id}`, { path: '/customers/acme-corp.md' }));
    expect(renamed).toMatchObject({ id: created.id, path: '/customers/acme-corp.md' });
    expect((await call('DELETE', `${memories}/${created.id}?expectedContentSha256=${created.contentSha256}`)).status).toBe(409);
    await ok(call('DELETE', `${memories}/${created.id}?expectedContentSha256=${first.contentSha256}`));
    expect((await call('GET', `${memories}/${created.id}`)).status).toBe(404);

    const versions = await ok(call('GET', `${stores()}/${store.id}/memory-versions?memoryId=${created.id}`, undefined, reader));
    expect(versions.data.map((version: any) => [version.operation, version.path, version.contentSha256])).toEqual([
      ['deleted', '/customers/acme-corp.md', null],
      ['modified', '/customers/acme-corp.md', first.contentSha256],
      ['modified', '/customers/acme.md', first.contentSha256],
      ['created', '/customers/acme.md', created.contentSha256],
    ]);
    expect(versions.data[0].writtenBy).toMatchObject({ type: 'principal' });
    const original = await ok(call('GET', `${stores()}/${store.id}/memory-versions/${versions.data[3].id}`));
    expect(original.content).toBe('Prefers email.');
    expect(await ok(call('GET', `${stores()}/${store.id}`))).toMatchObject({ memoryCount: 0, sizeBytes: 0, versionCount: 4 });

    const written = (await feed()).filter((event: any) => event.kind.startsWith('memory.') && event.publicPayload.memoryId === created.id);
    expect(written.map((event: any) => [event.kind, event.publicPayload.operation])).toEqual([
      ['memory.written', 'created'],
      ['memory.written', 'modified'],
      ['memory.written', 'modified'],
      ['memory.deleted', 'deleted'],
    ]);
    expect(JSON.stringify(written)).not.toContain('Prefers');
  });

  it('refuses a path that is taken or overlaps another memory, naming the one in the way', async () => {
    const store = await newStore();
    const memories = `${stores()}/${store.id}/memories`;
    const notes = await ok(call('POST', memories, { path: '/notes/todo.md', content: 'a' }), 201);
    for (const path of ['/notes/todo.md', '/notes', '/notes/todo.md/more']) {
      const answer = await call('POST', memories, { path, content: 'b' });
      expect(answer.status, path).toBe(409);
      expect(answer.body.error.details).toMatchObject({ reason: 'memory_path_conflict', conflictingPath: '/notes/todo.md', conflictingMemoryId: notes.id });
    }
    // `%` and `_` are literal, and a sibling that shares a prefix is no overlap.
    await ok(call('POST', memories, { path: '/notes-archive/todo.md', content: 'c' }), 201);
    await ok(call('POST', memories, { path: '/n_tes/x', content: 'd' }), 201);
    const other = await ok(call('POST', memories, { path: '/other.md', content: 'e' }), 201);
    expect((await call('PATCH', `${memories}/${other.id}`, { path: '/notes' })).status).toBe(409);
  });

  it('lists by prefix in path order, a page at a time, and rolls deeper memories up with depth', async () => {
    const store = await newStore();
    const memories = `${stores()}/${store.id}/memories`;
    for (const path of ['/b.md', '/a/2.md', '/a/1.md', '/a/deep/x.md', '/c/z.md', '/a-b.md']) await ok(call('POST', memories, { path, content: path }), 201);
    const pathsOf = (body: any) => body.data.map((item: any) => (item.type === 'prefix' ? `${item.path} (dir)` : item.path));

    expect(pathsOf(await ok(call('GET', memories)))).toEqual(['/a-b.md', '/a/1.md', '/a/2.md', '/a/deep/x.md', '/b.md', '/c/z.md']);
    expect(pathsOf(await ok(call('GET', `${memories}?pathPrefix=/a/`)))).toEqual(['/a/1.md', '/a/2.md', '/a/deep/x.md']);
    expect(pathsOf(await ok(call('GET', `${memories}?depth=1`)))).toEqual(['/a-b.md', '/a/ (dir)', '/b.md', '/c/ (dir)']);
    expect(pathsOf(await ok(call('GET', `${memories}?pathPrefix=/a/&depth=1`)))).toEqual(['/a/1.md', '/a/2.md', '/a/deep/ (dir)']);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await ok(call('GET', `${memories}?limit=2&depth=1${cursor ? `&cursor=${cursor}` : ''}`));
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...pathsOf(page));
      cursor = page.pageInfo.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['/a-b.md', '/a/ (dir)', '/b.md', '/c/ (dir)']);
    const full = await ok(call('GET', `${memories}?view=full&pathPrefix=/c/`));
    expect(full.data[0].content).toBe('/c/z.md');
    // With content, a page holds at most 20 items, whatever the limit asked.
    for (let n = 0; n < 21; n++) await ok(call('POST', memories, { path: `/many/${String(n).padStart(2, '0')}.md`, content: 'x' }), 201);
    const capped = await ok(call('GET', `${memories}?view=full&pathPrefix=/many/&limit=200`));
    expect(capped.data).toHaveLength(20);
    expect(capped.pageInfo.nextCursor).not.toBeNull();
    expect((await call('GET', `${memories}?cursor=bm90LW91cnM`)).status).toBe(400);
  });

  it('redacts a version for good: its content leaves every read, its hash and size stay, and the act is audited', async () => {
    const store = await newStore();
    const memories = `${stores()}/${store.id}/memories`;
    const memory = await ok(call('POST', memories, { path: '/secret.md', content: 'The door code is 4711.' }), 201);
    // The current content cannot be redacted away while it is still the memory's content.
    const current = await call('POST', `${stores()}/${store.id}/memory-versions/${memory.versionId}/redact`);
    expect(current.status).toBe(409);
    await ok(call('PATCH', `${memories}/${memory.id}`, { content: 'Ask the front desk.' }));
    expect((await call('POST', `${stores()}/${store.id}/memory-versions/${memory.versionId}/redact`, undefined, reader)).status).toBe(403);
    const redacted = await ok(call('POST', `${stores()}/${store.id}/memory-versions/${memory.versionId}/redact`));
    expect(redacted).toMatchObject({
      content: null,
      path: null,
      contentSha256: sha('The door code is 4711.'),
      contentSizeBytes: 22,
      redactedBy: { type: 'principal' },
    });
    expect(redacted.redactedAt).not.toBeNull();
    expect((await ok(call('GET', `${stores()}/${store.id}/memory-versions/${memory.versionId}?view=full`))).content).toBeNull();
    const listed = await ok(call('GET', `${stores()}/${store.id}/memory-versions?view=full`));
    expect(JSON.stringify(listed)).not.toContain('4711');
    const [row] = await t.database.db.select().from(memoryVersions).where(eq(memoryVersions.id, memory.versionId));
    expect(row).toMatchObject({ content: null, path: null });
    const audit = await t.database.db.select().from(auditEntries).where(eq(auditEntries.targetId, memory.versionId));
    expect(audit.map((entry) => entry.action)).toEqual(['memory_version.redacted']);
    // Nor in the configuration backup, the feed or the service's log lines.
    const backup = await t.request('GET', `/v1/organizations/${organizationId}/configuration-backup`, { apiKey: outsider });
    expect(backup.status).toBe(200);
    const backupText = await backup.text();
    expect(JSON.parse(backupText).projects.flatMap((project: { memoryStores?: unknown[] }) => project.memoryStores ?? []).length).toBeGreaterThan(0);
    expect(backupText).not.toContain('4711');
    expect(JSON.stringify(await feed())).not.toContain('4711');
    expect(t.logLines.join('\n')).not.toContain('4711');
  });

  it('needs memory:read to read and memory:write to change; another project’s store is not there', async () => {
    const store = await newStore();
    expect((await call('POST', stores(), { name: 'x' }, reader)).status).toBe(403);
    expect((await call('POST', `${stores()}/${store.id}/memories`, { path: '/x', content: 'x' }, reader)).status).toBe(403);
    const runOnly = (await t.createApiKey(['run:read'], 'no memory')).secret;
    expect((await call('GET', stores(), undefined, runOnly)).status).toBe(403);
    // Addressed through the other project, the store is not there, for reads and writes alike.
    expect((await call('GET', `${stores(otherProjectId)}/${store.id}`, undefined, outsider)).status).toBe(404);
    expect((await call('POST', `${stores(otherProjectId)}/${store.id}/memories`, { path: '/x', content: 'x' }, outsider)).status).toBe(404);
    expect((await ok(call('GET', stores(otherProjectId), undefined, outsider))).data).toEqual([]);
    expect((await call('DELETE', `${stores(otherProjectId)}/${store.id}`, undefined, outsider)).status).toBe(404);
    await ok(call('POST', `${stores()}/${store.id}/memories`, { path: '/mine.md', content: 'mine' }), 201);
    expect((await call('GET', `${stores(otherProjectId)}/${store.id}/memories`, undefined, outsider)).status).toBe(404);
    expect((await ok(call('GET', `${stores()}/${store.id}`))).id).toBe(store.id);
  });

  it('a retried memory tool call finds the version it wrote: one version, the same answer', async () => {
    const store = await newStore('Retried');
    const ctx = systemContext({ db: t.database.db, logger: t.deps.logger });
    const toolCall = {
      run: { id: crypto.randomUUID(), sessionId: crypto.randomUUID(), organizationId, projectId },
      stores: [
        {
          storeId: store.id,
          name: 'Retried',
          description: '',
          mount: 'retried',
          mountPath: '/mnt/memory/retried/',
          access: 'read_write' as const,
          instructions: null,
        },
      ],
      toolCallId: crypto.randomUUID(),
      toolName: 'memory_write',
      arguments: { store: 'retried', path: '/once.md', content: 'written once' },
    };
    const first = await answerMemoryTool({ ctx, input: toolCall });
    const again = await answerMemoryTool({ ctx, input: toolCall });
    expect(first).toMatchObject({ ok: true, value: { operation: 'created', path: '/once.md' } });
    expect(again).toEqual(first);
    expect((await ok(call('GET', `${stores()}/${store.id}`))).versionCount).toBe(1);
    // A new call (another id) is a new write: here, one that changes nothing writes no version.
    const other = await answerMemoryTool({ ctx, input: { ...toolCall, toolCallId: crypto.randomUUID() } });
    expect(other).toMatchObject({ ok: true, value: { operation: 'unchanged' } });
    expect((await ok(call('GET', `${stores()}/${store.id}`))).versionCount).toBe(1);
  });

  it('goes with its project: deleting a project deletes its stores, memories and versions', async () => {
    const created = await t.request('POST', '/v1/projects', { cookie, body: { slug: 'memory-doomed', name: 'Doomed' } });
    const doomed = (await created.json()).id as string;
    const store = await ok(call('POST', stores(doomed), { name: 'Doomed notes' }, outsider), 201);
    await ok(call('POST', `${stores(doomed)}/${store.id}/memories`, { path: '/a.md', content: 'gone soon' }, outsider), 201);
    expect((await t.request('DELETE', `/v1/projects/${doomed}`, { cookie })).status).toBe(200);
    const left = await t.database.db.select().from(memoryVersions).where(eq(memoryVersions.storeId, store.id));
    expect(left).toEqual([]);
    expect((await t.database.db.select().from(memoryStores).where(eq(memoryStores.id, store.id))).length).toBe(0);
  });
});
