import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKILL_FILE_MAX_BYTES } from '../../domain/skills/limits.ts';
import { createTestApp, type TestApp, type TestResponse } from '../support/app.ts';

let t: TestApp;
let projectId: string;
let admin: string;
let reader: string;
let writer: string;

beforeAll(async () => {
  t = await createTestApp();
  const { context } = await t.login();
  projectId = context.project.id;
  admin = (await t.createApiKey(['*'], 'drafts admin')).secret;
  reader = (await t.createApiKey(['skill:read', 'skill:revoke'], 'drafts reader')).secret;
  writer = (await t.createApiKey(['skill:write', 'skill:revoke'], 'drafts writer')).secret;
});
afterAll(() => t.close());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const md = (path: string, text = '# Notes\n') => ({ path, contentType: 'text/markdown', dataBase64: b64(text) });
const drafts = () => `/v1/projects/${projectId}/skill-drafts`;
const errorOf = async (response: TestResponse) => (await response.json()).error as { code: string; message: string; details?: { path?: string } };
let counter = 0;
const nextKey = () => `draft-skill-${++counter}`;

async function blankDraft() {
  const response = await t.request('POST', drafts(), { apiKey: admin, body: {} });
  expect(response.status).toBe(201);
  return response.json();
}

async function completeDraft() {
  const draft = await blankDraft();
  const saved = await t.request('PATCH', `${drafts()}/${draft.id}`, {
    apiKey: admin,
    body: { name: 'notes', description: 'Keeps notes.', instructions: '# Notes\n\nWrite them down.' },
  });
  expect(saved.status).toBe(200);
  return draft;
}

describe('scopes', () => {
  it('reads need skill:read, every change skill:write', async () => {
    const draft = await blankDraft();
    const d = `${drafts()}/${draft.id}`;
    const routes: Array<[string, string, string, unknown?]> = [
      ['GET', drafts(), 'skill:read'],
      ['POST', drafts(), 'skill:write', {}],
      ['GET', d, 'skill:read'],
      ['PATCH', d, 'skill:write', { name: 'x' }],
      ['DELETE', d, 'skill:write'],
      ['POST', `${d}/directories`, 'skill:write', { path: 'refs' }],
      ['PUT', `${d}/files`, 'skill:write', md('a.md')],
      ['DELETE', `${d}/entries?path=a.md`, 'skill:write'],
      ['POST', `${d}/validate`, 'skill:write'],
      ['POST', `${d}/publish`, 'skill:write', { key: nextKey(), displayName: 'x' }],
    ];
    for (const [method, path, scope, body] of routes) {
      const response = await t.request(method, path, { apiKey: scope === 'skill:read' ? writer : reader, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect((await errorOf(response)).message).toContain(scope);
    }
    expect((await t.request('GET', d, { apiKey: reader })).status).toBe(200);
  });
});

describe('draft metadata', () => {
  it('creates a blank draft, saves any subset of fields, and lists it', async () => {
    const draft = await blankDraft();
    expect(draft).toMatchObject({
      skillId: null,
      sourceSkillVersionId: null,
      name: null,
      instructions: null,
      metadata: {},
      allowedTools: [],
      directories: [],
      files: [],
    });
    const path = `${drafts()}/${draft.id}`;
    expect(await (await t.request('PATCH', path, { apiKey: writer, body: { name: 'notes' } })).json()).toMatchObject({ name: 'notes', description: null });
    const saved = await (
      await t.request('PATCH', path, { apiKey: writer, body: { instructions: 'Do it.', metadata: { author: 'me' }, license: 'MIT' } })
    ).json();
    expect(saved).toMatchObject({ name: 'notes', instructions: 'Do it.', metadata: { author: 'me' }, license: 'MIT' });
    expect(await (await t.request('PATCH', path, { apiKey: writer, body: { license: null } })).json()).toMatchObject({ license: null, name: 'notes' });

    const list = await (await t.request('GET', `${drafts()}?limit=200`, { apiKey: reader })).json();
    const listed = list.data.find((item: { id: string }) => item.id === draft.id);
    expect(listed).toMatchObject({ name: 'notes' });
    expect(listed).not.toHaveProperty('instructions');
  });

  it.each([
    [{ name: 'Not Valid' }, 'body.name'],
    [{ description: 'x'.repeat(1025) }, 'body.description'],
    [{ metadata: { 'bad key': 'v' } }, 'body.metadata.bad key'],
    [{ allowedTools: ['a b'] }, 'body.allowedTools.0'],
    [{ unknown: 1 }, 'body.unknown'],
  ])('refuses %j with details.path', async (body, detailsPath) => {
    const draft = await blankDraft();
    const response = await t.request('PATCH', `${drafts()}/${draft.id}`, { apiKey: writer, body });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details?.path).toBe(detailsPath);
  });

  it('discards a draft; then it is gone', async () => {
    const draft = await blankDraft();
    const removed = await t.request('DELETE', `${drafts()}/${draft.id}`, { apiKey: writer });
    expect(await removed.json()).toEqual({ id: draft.id, deleted: true });
    expect((await t.request('GET', `${drafts()}/${draft.id}`, { apiKey: reader })).status).toBe(404);
    expect((await t.request('DELETE', `${drafts()}/${draft.id}`, { apiKey: writer })).status).toBe(404);
  });

  it('another project’s draft is 404', async () => {
    const project = await (await t.request('POST', '/v1/projects', { apiKey: admin, body: { slug: 'drafts-other', name: 'Other' } })).json();
    const foreign = await (await t.request('POST', `/v1/projects/${project.id}/skill-drafts`, { apiKey: admin, body: {} })).json();
    expect((await t.request('GET', `${drafts()}/${foreign.id}`, { apiKey: admin })).status).toBe(404);
    expect((await t.request('PUT', `${drafts()}/${foreign.id}/files`, { apiKey: admin, body: md('a.md') })).status).toBe(404);
  });
});

describe('folders and files', () => {
  it('creates folders with missing parents, idempotently', async () => {
    const draft = await blankDraft();
    const path = `${drafts()}/${draft.id}/directories`;
    const created = await t.request('POST', path, { apiKey: writer, body: { path: 'a/b/c' } });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ path: 'a/b/c', kind: 'directory', created: true, createdPaths: ['a', 'a/b', 'a/b/c'] });
    const again = await t.request('POST', path, { apiKey: writer, body: { path: 'a/b/c' } });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ created: false, createdPaths: [] });
    expect((await t.request('POST', path, { apiKey: writer, body: { path: 'A/b' } })).status).toBe(409);
    const bad = await t.request('POST', path, { apiKey: writer, body: { path: '../up' } });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).details?.path).toBe('body.path');
    expect((await (await t.request('GET', `${drafts()}/${draft.id}`, { apiKey: reader })).json()).directories).toEqual(['a', 'a/b', 'a/b/c']);
  });

  it('writes files with missing parents, replaces them, refuses folders', async () => {
    const draft = await blankDraft();
    const files = `${drafts()}/${draft.id}/files`;
    const created = await t.request('PUT', files, { apiKey: writer, body: md('refs/deep/guide.md', 'v1') });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ path: 'refs/deep/guide.md', created: true, sizeBytes: 2, createdDirectories: ['refs', 'refs/deep'] });
    const replaced = await t.request('PUT', files, { apiKey: writer, body: md('refs/deep/guide.md', 'version two') });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ created: false, sizeBytes: 11 });

    expect((await t.request('PUT', files, { apiKey: writer, body: md('refs/deep', 'x') })).status).toBe(400); // not .md
    await t.request('POST', `${drafts()}/${draft.id}/directories`, { apiKey: writer, body: { path: 'folder.md' } });
    const onFolder = await t.request('PUT', files, { apiKey: writer, body: md('folder.md') });
    expect(onFolder.status).toBe(409);
    expect((await errorOf(onFolder)).message).toContain('is a folder');
    expect((await t.request('PUT', files, { apiKey: writer, body: md('refs/deep/guide.md/x.md') })).status).toBe(409);
    expect((await t.request('PUT', files, { apiKey: writer, body: md('REFS/Guide.md') })).status).toBe(409);

    const read = await (await t.request('GET', `${drafts()}/${draft.id}`, { apiKey: reader })).json();
    expect(read.directories).toEqual(['folder.md', 'refs', 'refs/deep']);
    expect(read.files).toEqual([{ path: 'refs/deep/guide.md', contentType: 'text/markdown', dataBase64: b64('version two'), sizeBytes: 11 }]);
  });

  it.each([
    [md('../x.md'), 'body.path'],
    [md('/abs.md'), 'body.path'],
    [md('a//b.md'), 'body.path'],
    [md('a\\b.md'), 'body.path'],
    [md('notes.txt'), 'body.path'],
    [md('SKILL.md'), 'body.path'],
    [{ ...md('a.md'), contentType: 'text/plain' }, 'body.contentType'],
    [{ ...md('a.md'), dataBase64: Buffer.from([0xff, 0xfe, 0x00]).toString('base64') }, 'body.dataBase64'],
    [{ ...md('a.md'), dataBase64: 'aGk' }, 'body.dataBase64'],
    [{ ...md('a.md'), dataBase64: 'a GVsbG8=' }, 'body.dataBase64'],
  ])('refuses %j with details.path', async (file, detailsPath) => {
    const draft = await blankDraft();
    const response = await t.request('PUT', `${drafts()}/${draft.id}/files`, { apiKey: writer, body: file });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('bad_request');
    expect(error.details?.path).toBe(detailsPath);
  });

  it('takes a file of the per-file limit and refuses one byte more', async () => {
    const draft = await blankDraft();
    const files = `${drafts()}/${draft.id}/files`;
    const full = 'a'.repeat(SKILL_FILE_MAX_BYTES);
    expect((await t.request('PUT', files, { apiKey: writer, body: md('full.md', full) })).status).toBe(201);
    const over = await t.request('PUT', files, { apiKey: writer, body: md('over.md', `${full}a`) });
    expect(over.status).toBe(400);
    expect((await errorOf(over)).details?.path).toBe('body.dataBase64');
  });

  it('deletes files, empty folders, and non-empty folders only recursively', async () => {
    const draft = await blankDraft();
    const d = `${drafts()}/${draft.id}`;
    await t.request('PUT', `${d}/files`, { apiKey: writer, body: md('refs/a.md') });
    await t.request('PUT', `${d}/files`, { apiKey: writer, body: md('refs/sub/b.md') });
    await t.request('POST', `${d}/directories`, { apiKey: writer, body: { path: 'empty' } });

    const refused = await t.request('DELETE', `${d}/entries?path=refs`, { apiKey: writer });
    expect(refused.status).toBe(409);
    expect((await t.request('DELETE', `${d}/entries?path=refs&recursive=false`, { apiKey: writer })).status).toBe(409);
    expect(await (await t.request('DELETE', `${d}/entries?path=empty`, { apiKey: writer })).json()).toMatchObject({
      kind: 'directory',
      deletedPaths: ['empty'],
    });
    expect(await (await t.request('DELETE', `${d}/entries?path=refs/a.md`, { apiKey: writer })).json()).toMatchObject({
      kind: 'file',
      deletedPaths: ['refs/a.md'],
    });
    const recursive = await t.request('DELETE', `${d}/entries?path=refs&recursive=true`, { apiKey: writer });
    expect(recursive.status).toBe(200);
    expect(await recursive.json()).toEqual({ path: 'refs', kind: 'directory', deleted: true, deletedPaths: ['refs', 'refs/sub', 'refs/sub/b.md'] });
    expect((await t.request('DELETE', `${d}/entries?path=refs`, { apiKey: writer })).status).toBe(404);
    const bad = await t.request('DELETE', `${d}/entries?path=../x`, { apiKey: writer });
    expect((await errorOf(bad)).details?.path).toBe('query.path');
    const read = await (await t.request('GET', d, { apiKey: reader })).json();
    expect([read.directories, read.files]).toEqual([[], []]);
  });
});

describe('validate and publish', () => {
  it('validate reports every problem with a 200', async () => {
    const draft = await blankDraft();
    const d = `${drafts()}/${draft.id}`;
    await t.request('PATCH', d, { apiKey: writer, body: { name: 'notes' } });
    const response = await t.request('POST', `${d}/validate`, { apiKey: writer });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      valid: false,
      contentHash: null,
      problems: [
        { path: 'description', message: 'is required' },
        { path: 'instructions', message: 'is required' },
      ],
    });
    await t.request('PATCH', d, { apiKey: writer, body: { description: 'd', instructions: 'i' } });
    const valid = await (await t.request('POST', `${d}/validate`, { apiKey: writer, body: {} })).json();
    expect(valid).toMatchObject({ valid: true, problems: [], contentHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('a blank draft needs key and displayName, an invalid one is 400 with the first problem', async () => {
    const incomplete = await blankDraft();
    const invalid = await t.request('POST', `${drafts()}/${incomplete.id}/publish`, { apiKey: writer, body: { key: nextKey(), displayName: 'Notes' } });
    expect(invalid.status).toBe(400);
    expect((await errorOf(invalid)).details?.path).toBe('name');

    const draft = await completeDraft();
    const publish = `${drafts()}/${draft.id}/publish`;
    const noKey = await t.request('POST', publish, { apiKey: writer, body: { displayName: 'Notes' } });
    expect((await errorOf(noKey)).details?.path).toBe('body.key');
    expect((await t.request('GET', `${drafts()}/${draft.id}`, { apiKey: reader })).status).toBe(200);
  });

  it('publishes a blank draft as a new Skill and consumes the draft', async () => {
    const draft = await completeDraft();
    await t.request('PUT', `${drafts()}/${draft.id}/files`, { apiKey: writer, body: md('refs/guide.md', 'guide') });
    await t.request('POST', `${drafts()}/${draft.id}/directories`, { apiKey: writer, body: { path: 'empty/folder' } });
    const key = nextKey();
    const response = await t.request('POST', `${drafts()}/${draft.id}/publish`, { apiKey: writer, body: { key, displayName: 'Notes' } });
    expect(response.status).toBe(201);
    const published = await response.json();
    expect(published).toMatchObject({ draftId: draft.id, skill: { key, displayName: 'Notes', enabled: true }, version: { version: 1, name: 'notes' } });
    expect(published.version.files.map((file: { path: string }) => file.path)).toEqual(['refs/guide.md']);
    expect(published.skill.latestVersion).toEqual(published.version);
    expect((await t.request('GET', `${drafts()}/${draft.id}`, { apiKey: reader })).status).toBe(404);

    const again = await completeDraft();
    const taken = await t.request('POST', `${drafts()}/${again.id}/publish`, { apiKey: writer, body: { key, displayName: 'Notes' } });
    expect(taken.status).toBe(409);
  });

  it('clone → edit → publish makes version N+1 with the cloned files', async () => {
    const created = await (
      await t.request('POST', `/v1/projects/${projectId}/skills`, {
        apiKey: admin,
        body: {
          key: nextKey(),
          displayName: 'Cloned',
          name: 'cloned',
          description: 'd',
          instructions: 'v1',
          metadata: { a: '1' },
          files: [md('refs/one.md', 'one')],
        },
      })
    ).json();
    const v2 = await (
      await t.request('POST', `/v1/projects/${projectId}/skills/${created.id}/versions`, {
        apiKey: admin,
        body: { name: 'cloned', description: 'd', instructions: 'v2', files: [md('refs/one.md', 'one')] },
      })
    ).json();

    const cloned = await t.request('POST', drafts(), { apiKey: writer, body: { skillId: created.id, sourceSkillVersionId: v2.id } });
    expect(cloned.status).toBe(201);
    const draft = await cloned.json();
    expect(draft).toMatchObject({
      skillId: created.id,
      sourceSkillVersionId: v2.id,
      name: 'cloned',
      instructions: 'v2',
      directories: ['refs'],
      files: [{ path: 'refs/one.md', dataBase64: b64('one') }],
    });

    // Unchanged content conflicts with version 2; key and displayName are refused for a clone.
    expect((await t.request('POST', `${drafts()}/${draft.id}/publish`, { apiKey: writer })).status).toBe(409);
    const withKey = await t.request('POST', `${drafts()}/${draft.id}/publish`, { apiKey: writer, body: { key: nextKey(), displayName: 'x' } });
    expect((await errorOf(withKey)).details?.path).toBe('body.key');

    await t.request('PATCH', `${drafts()}/${draft.id}`, { apiKey: writer, body: { instructions: 'v3' } });
    await t.request('PUT', `${drafts()}/${draft.id}/files`, { apiKey: writer, body: md('refs/two.md', 'two') });
    const response = await t.request('POST', `${drafts()}/${draft.id}/publish`, { apiKey: writer });
    expect(response.status).toBe(201);
    const published = await response.json();
    expect(published.version).toMatchObject({ version: 3, skillId: created.id, metadata: {} });
    const exported = await (
      await t.request('GET', `/v1/projects/${projectId}/skills/${created.id}/versions/${published.version.id}/export`, { apiKey: reader })
    ).json();
    expect(exported.instructions).toBe('v3');
    expect(exported.files).toEqual([md('refs/one.md', 'one'), md('refs/two.md', 'two')]);
  });

  it('clone of another Skill’s version or a missing Skill is 404; half a clone is 400', async () => {
    const a = await (
      await t.request('POST', `/v1/projects/${projectId}/skills`, {
        apiKey: admin,
        body: { key: nextKey(), displayName: 'A', name: 'a', description: 'd', instructions: 'i' },
      })
    ).json();
    const b = await (
      await t.request('POST', `/v1/projects/${projectId}/skills`, {
        apiKey: admin,
        body: { key: nextKey(), displayName: 'B', name: 'b', description: 'd', instructions: 'i' },
      })
    ).json();
    expect((await t.request('POST', drafts(), { apiKey: writer, body: { skillId: a.id, sourceSkillVersionId: b.versions[0].id } })).status).toBe(404);
    expect((await t.request('POST', drafts(), { apiKey: writer, body: { skillId: crypto.randomUUID(), sourceSkillVersionId: b.versions[0].id } })).status).toBe(
      404,
    );
    expect((await t.request('POST', drafts(), { apiKey: writer, body: { skillId: a.id } })).status).toBe(400);
  });
});
