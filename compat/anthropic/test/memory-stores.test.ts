import Anthropic, { BadRequestError, ConflictError, NotFoundError, PermissionDeniedError } from '@anthropic-ai/sdk';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunApp } from '../../../test/support/run-app.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { recordSdkRequests } from '../../../test/support/anthropic-sdk.ts';

/**
 * `client.beta.memoryStores` (with `.memories` and `.memoryVersions`) and sessions with
 * `memory_store` resources, driven by the unmodified official SDK: the same stores, versions and
 * preconditions as the native API, in the SDK's shapes and error classes.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
const requests = recordSdkRequests();
const sdk = (options: { apiKey?: string } = {}) =>
  new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey: options.apiKey ?? f.apiKey, fetch: requests.fetch });
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const errorOf = async (call: () => Promise<unknown>) => {
  try {
    await call();
  } catch (error) {
    return error as Error & { status: number; error: { error: Record<string, unknown> } };
  }
  throw new Error('expected the call to fail');
};

beforeAll(async () => {
  f = await startRunApp({ runtime: 'later' });
  served = await serveApp(f.t.app.fetch);
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

describe('memory stores through the SDK', () => {
  it('creates, retrieves, updates, lists, archives and deletes a store', async () => {
    const client = sdk();
    const store = await client.beta.memoryStores.create({ name: 'Preferences', description: 'What users like.', metadata: { team: 'support' } });
    expect(store).toMatchObject({
      type: 'memory_store',
      name: 'Preferences',
      description: 'What users like.',
      metadata: { team: 'support' },
      archived_at: null,
    });
    expect(await client.beta.memoryStores.retrieve(store.id)).toEqual(store);
    const updated = await client.beta.memoryStores.update(store.id, { name: 'User preferences', metadata: { team: null, tier: 'gold' } });
    expect(updated).toMatchObject({ name: 'User preferences', description: 'What users like.', metadata: { tier: 'gold' } });
    const listed = [];
    for await (const entry of client.beta.memoryStores.list({ limit: 1 })) listed.push(entry.id);
    expect(listed).toContain(store.id);
    const archived = await client.beta.memoryStores.archive(store.id);
    expect(archived.archived_at).not.toBeNull();
    const write = await errorOf(() => client.beta.memoryStores.memories.create(store.id, { path: '/a.md', content: 'x' }));
    expect(write).toBeInstanceOf(ConflictError);
    const ids = [];
    for await (const entry of client.beta.memoryStores.list()) ids.push(entry.id);
    expect(ids).not.toContain(store.id);
    const withArchived = [];
    for await (const entry of client.beta.memoryStores.list({ include_archived: true })) withArchived.push(entry.id);
    expect(withArchived).toContain(store.id);
    expect(await client.beta.memoryStores.delete(store.id)).toEqual({ id: store.id, type: 'memory_store_deleted' });
    expect(await errorOf(() => client.beta.memoryStores.retrieve(store.id))).toBeInstanceOf(NotFoundError);
    expect(await errorOf(() => client.beta.memoryStores.retrieve('memstore_01abc'))).toBeInstanceOf(NotFoundError);
    expect(await errorOf(() => client.beta.memoryStores.create({ name: '' }))).toBeInstanceOf(BadRequestError);
  });

  it('writes memories with content_sha256 preconditions, lists by prefix and depth, and keeps every version', async () => {
    const client = sdk();
    const store = await client.beta.memoryStores.create({ name: 'Notes' });
    const memory = await client.beta.memoryStores.memories.create(store.id, { path: '/customers/acme.md', content: 'Renews in March.' });
    // Create and update answer `basic` (no content) by default, retrieve `full`.
    expect(memory).toMatchObject({
      type: 'memory',
      memory_store_id: store.id,
      path: '/customers/acme.md',
      content: null,
      content_sha256: sha('Renews in March.'),
    });
    expect(memory.content_size_bytes).toBe(16);
    await client.beta.memoryStores.memories.create(store.id, { path: '/customers/globex.md', content: 'Asks for invoices.' });
    await client.beta.memoryStores.memories.create(store.id, { path: '/readme.md', content: 'Index.' });
    const read = await client.beta.memoryStores.memories.retrieve(memory.id, { memory_store_id: store.id });
    expect(read.content).toBe('Renews in March.');

    const changed = await client.beta.memoryStores.memories.update(memory.id, {
      memory_store_id: store.id,
      content: 'Renews in March; ask for Dana.',
      precondition: { type: 'content_sha256', content_sha256: sha('Renews in March.') },
    });
    expect(changed.memory_version_id).not.toBe(memory.memory_version_id);
    const stale = await errorOf(() =>
      client.beta.memoryStores.memories.update(memory.id, {
        memory_store_id: store.id,
        content: 'Churned.',
        precondition: { type: 'content_sha256', content_sha256: sha('Renews in March.') },
      }),
    );
    expect(stale).toBeInstanceOf(ConflictError);
    expect(stale.error.error.type).toBe('memory_precondition_failed_error');
    const clash = await errorOf(() => client.beta.memoryStores.memories.create(store.id, { path: '/customers', content: 'x' }));
    expect(clash).toBeInstanceOf(ConflictError);
    expect(clash.error.error).toMatchObject({ type: 'memory_path_conflict_error', conflicting_path: '/customers/acme.md', conflicting_memory_id: memory.id });
    // Odd input is a 400 naming the field, never a 500.
    for (const odd of [
      () => client.beta.memoryStores.memories.create(store.id, { path: 'notes.md', content: 'x' }),
      () => client.beta.memoryStores.memories.update(memory.id, { memory_store_id: store.id }),
      () =>
        client.beta.memoryStores.memories.update(memory.id, {
          memory_store_id: store.id,
          content: 'x',
          precondition: { type: 'content_sha256', content_sha256: 'abc' },
        }),
      () => client.beta.memoryStores.memories.list(store.id, { depth: 99 }),
      () => client.beta.memoryStores.memories.list(store.id, { path_prefix: '/customers' }),
      () => client.beta.memoryStores.update(store.id, { name: 'x'.repeat(256) }),
    ]) {
      expect(await errorOf(odd)).toBeInstanceOf(BadRequestError);
    }

    const under = [];
    for await (const item of client.beta.memoryStores.memories.list(store.id, { path_prefix: '/customers/', limit: 1 })) under.push(item.path);
    expect(under).toEqual(['/customers/acme.md', '/customers/globex.md']);
    const top = [];
    for await (const item of client.beta.memoryStores.memories.list(store.id, { depth: 1 })) top.push(`${item.type} ${item.path}`);
    expect(top).toEqual(['memory_prefix /customers/', 'memory /readme.md']);
    const full = await client.beta.memoryStores.memories.list(store.id, { path_prefix: '/customers/', view: 'full' });
    expect(full.data.map((item) => (item.type === 'memory' ? item.content : null))).toEqual(['Renews in March; ask for Dana.', 'Asks for invoices.']);

    const staleDelete = await errorOf(() =>
      client.beta.memoryStores.memories.delete(memory.id, { memory_store_id: store.id, expected_content_sha256: sha('Renews in March.') }),
    );
    expect(staleDelete).toBeInstanceOf(ConflictError);
    expect(
      await client.beta.memoryStores.memories.delete(memory.id, { memory_store_id: store.id, expected_content_sha256: sha('Renews in March; ask for Dana.') }),
    ).toEqual({ id: memory.id, type: 'memory_deleted' });

    const versions = [];
    for await (const version of client.beta.memoryStores.memoryVersions.list(store.id, { memory_id: memory.id })) versions.push(version);
    expect(versions.map((version) => version.operation)).toEqual(['deleted', 'modified', 'created']);
    expect(versions[2]).toMatchObject({
      type: 'memory_version',
      memory_id: memory.id,
      memory_store_id: store.id,
      content: null,
      content_sha256: sha('Renews in March.'),
    });
    expect(versions[2]!.created_by).toMatchObject({ type: 'api_actor' });
    const first = await client.beta.memoryStores.memoryVersions.retrieve(versions[2]!.id, { memory_store_id: store.id });
    expect(first.content).toBe('Renews in March.');

    // Redaction: the content is gone from every read, the hash and size stay.
    const redacted = await client.beta.memoryStores.memoryVersions.redact(versions[2]!.id, { memory_store_id: store.id });
    expect(redacted).toMatchObject({ content: null, path: null, content_sha256: sha('Renews in March.'), content_size_bytes: 16 });
    expect(redacted.redacted_at).not.toBeNull();
    expect((await client.beta.memoryStores.memoryVersions.retrieve(versions[2]!.id, { memory_store_id: store.id })).content).toBeNull();
    const listedFull = await client.beta.memoryStores.memoryVersions.list(store.id, { memory_id: memory.id, view: 'full' });
    expect(JSON.stringify(listedFull.data)).not.toContain('Renews in March.');
  });

  it('attaches stores to sessions as memory_store resources, and needs the memory scopes', async () => {
    const client = sdk();
    const store = await client.beta.memoryStores.create({ name: 'Team notes', description: 'Shared notes.' });
    const agent = await client.beta.agents.create({ name: 'Remembers', model: 'fast' });
    const session = await client.beta.sessions.create({
      agent: agent.id,
      environment_id: 'env_default',
      resources: [{ type: 'memory_store', memory_store_id: store.id, access: 'read_only', instructions: 'Check before answering.' }],
    });
    expect(session.resources).toEqual([
      {
        type: 'memory_store',
        memory_store_id: store.id,
        access: 'read_only',
        name: 'Team notes',
        description: 'Shared notes.',
        instructions: 'Check before answering.',
        mount_path: '/mnt/memory/team-notes',
      },
    ]);
    expect((await client.beta.sessions.retrieve(session.id)).resources).toEqual(session.resources);
    const missing = await errorOf(() =>
      client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default', resources: [{ type: 'memory_store', memory_store_id: 'memstore_nope' }] }),
    );
    expect(missing).toBeInstanceOf(NotFoundError);

    const runOnly = (await f.t.createApiKey(['run:read'], 'no memory')).secret;
    expect(await errorOf(() => sdk({ apiKey: runOnly }).beta.memoryStores.list())).toBeInstanceOf(PermissionDeniedError);
    const reader = (await f.t.createApiKey(['memory:read'], 'memory reader')).secret;
    expect((await sdk({ apiKey: reader }).beta.memoryStores.retrieve(store.id)).id).toBe(store.id);
    expect(await errorOf(() => sdk({ apiKey: reader }).beta.memoryStores.memories.create(store.id, { path: '/x.md', content: 'x' }))).toBeInstanceOf(
      PermissionDeniedError,
    );
  });
});
