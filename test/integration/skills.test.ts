import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations, projects, skills, skillVersions } from '../../db/schema/index.ts';
import { SKILL_FILE_MAX_BYTES, SKILL_PACKAGE_MAX_BYTES } from '../../domain/skills/limits.ts';
import { loadSkillVersionFacts } from '../../services/configuration/skills/index.ts';
import { createTestApp, type TestApp, type TestResponse } from '../support/app.ts';

let t: TestApp;
let projectId: string;
let organizationId: string;
let admin: string;
let eventsKey: string;
/** Keys holding every Skill scope but one: `without['skill:write']` lacks only skill:write. */
const without: Record<string, string> = {};

const SKILL_SCOPES = ['skill:read', 'skill:write', 'skill:revoke'];

beforeAll(async () => {
  t = await createTestApp();
  const { context } = await t.login();
  projectId = context.project.id;
  organizationId = context.organization.id;
  admin = (await t.createApiKey(['*'], 'skills admin')).secret;
  eventsKey = (await t.createApiKey(['run:read'], 'events')).secret;
  for (const scope of SKILL_SCOPES)
    without[scope] = (
      await t.createApiKey(
        SKILL_SCOPES.filter((other) => other !== scope),
        `without ${scope}`,
      )
    ).secret;
});
afterAll(() => t.close());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const md = (path: string, text = '# Guide\n') => ({ path, contentType: 'text/markdown', dataBase64: b64(text) });
let counter = 0;
const nextKey = () => `skill-${++counter}`;
const versionBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'pdf-tools',
  description: 'Work with PDF files.',
  instructions: '# PDF tools\n\nUse the references.\n',
  files: [md('references/guide.md')],
  ...overrides,
});
const base = (project = projectId) => `/v1/projects/${project}/skills`;
const errorOf = async (response: TestResponse) => (await response.json()).error as { code: string; message: string; details?: { path?: string } };

async function createSkill(overrides: Record<string, unknown> = {}, project = projectId) {
  const response = await t.request('POST', base(project), {
    apiKey: admin,
    body: { key: nextKey(), displayName: 'PDF tools', ...versionBody(), ...overrides },
  });
  expect(response.status).toBe(201);
  return response.json();
}

/** Product events of one Skill, in feed order, read through the public feed. */
async function skillEvents(skillId: string): Promise<Array<{ kind: string; publicPayload: Record<string, unknown> }>> {
  const response = await t.request('GET', `/v1/projects/${projectId}/events?once=true&limit=1000`, { apiKey: eventsKey });
  expect(response.status).toBe(200);
  const events = [...(await response.text()).matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!));
  return events.filter((event) => event.aggregateId === skillId);
}

describe('scopes', () => {
  it('every Skills route answers 403 naming the scope the key lacks', async () => {
    const skill = await createSkill();
    const versionId = skill.versions[0].id;
    const s = `${base()}/${skill.id}`;
    const routes: Array<[string, string, string, unknown?]> = [
      ['GET', base(), 'skill:read'],
      ['POST', base(), 'skill:write', { key: nextKey(), displayName: 'x', ...versionBody() }],
      ['GET', s, 'skill:read'],
      ['PATCH', s, 'skill:revoke', { enabled: false }],
      ['DELETE', s, 'skill:revoke'],
      ['POST', `${s}/versions`, 'skill:write', versionBody({ instructions: 'other' })],
      ['GET', `${s}/versions/${versionId}/export`, 'skill:read'],
      ['PATCH', `${s}/versions/${versionId}/lifecycle`, 'skill:revoke', { status: 'deprecated' }],
    ];
    for (const [method, path, scope, body] of routes) {
      const denied = await t.request(method, path, { apiKey: without[scope], body });
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect((await errorOf(denied)).message).toContain(scope);
    }
    // Nothing changed: the Skill is still enabled, with one active version.
    const after = await (await t.request('GET', s, { apiKey: without['skill:write'] })).json();
    expect(after).toMatchObject({ enabled: true, versions: [{ status: 'active' }] });
  });

  it('no key is 401; another organization’s project is 403; a malformed body is 400', async () => {
    expect((await t.request('GET', base())).status).toBe(401);
    expect((await t.request('POST', `/v1/projects/${projectId}/skill-drafts`, { body: {} })).status).toBe(401);
    const [org] = await t.database.db.insert(organizations).values({ slug: 'skills-foreign-org', name: 'F' }).returning();
    const [foreign] = await t.database.db.insert(projects).values({ organizationId: org!.id, slug: 'foreign', name: 'F' }).returning();
    for (const path of [base(foreign!.id), `/v1/projects/${foreign!.id}/skill-drafts`]) {
      expect((await t.request('GET', path, { apiKey: admin })).status).toBe(403);
      expect((await t.request('POST', path, { apiKey: admin, body: {} })).status).toBe(403);
    }
    const malformed = await t.request('POST', base(), { apiKey: admin, rawBody: '{not json' });
    expect(malformed.status).toBe(400);
    expect((await errorOf(malformed)).code).toBe('bad_request');
  });

  it('writes need an Idempotency-Key', async () => {
    const response = await t.request('POST', base(), { apiKey: admin, idempotencyKey: null, body: { key: nextKey(), displayName: 'x', ...versionBody() } });
    expect(response.status).toBe(400);
  });
});

describe('create, read, list', () => {
  it('creates the Skill and version 1 atomically, with a manifest of the files', async () => {
    const key = nextKey();
    const response = await t.request('POST', base(), {
      apiKey: admin,
      body: { key, displayName: 'PDF tools', ...versionBody({ license: 'MIT', metadata: { author: 'me' }, allowedTools: ['Read'] }) },
    });
    expect(response.status).toBe(201);
    const skill = await response.json();
    const guide = Buffer.from('# Guide\n');
    expect(skill).toMatchObject({ key, displayName: 'PDF tools', enabled: true, disabledAt: null, projectId, organizationId });
    expect(skill.versions).toHaveLength(1);
    expect(skill.versions[0]).toMatchObject({
      version: 1,
      status: 'active',
      name: 'pdf-tools',
      license: 'MIT',
      compatibility: null,
      metadata: { author: 'me' },
      allowedTools: ['Read'],
      files: [{ path: 'references/guide.md', contentType: 'text/markdown', sizeBytes: guide.length, sha256: await sha256(guide) }],
    });
    expect(skill.versions[0].contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(skill.versions[0]).not.toHaveProperty('instructions');
    expect(skill.latestVersion).toEqual(skill.versions[0]);

    const read = await (await t.request('GET', `${base()}/${skill.id}`, { apiKey: without['skill:write'] })).json();
    expect(read).toEqual(skill);
    const list = await (await t.request('GET', `${base()}?limit=200`, { apiKey: without['skill:write'] })).json();
    const listed = list.data.find((item: { id: string }) => item.id === skill.id);
    expect(listed).toMatchObject({ key, latestVersion: { version: 1, id: skill.versions[0].id } });
    expect(listed).not.toHaveProperty('versions');
  });

  it('replays a create with the same Idempotency-Key', async () => {
    const body = { key: nextKey(), displayName: 'Once', ...versionBody() };
    const first = await t.request('POST', base(), { apiKey: admin, idempotencyKey: 'create-once', body });
    const replay = await t.request('POST', base(), { apiKey: admin, idempotencyKey: 'create-once', body });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect((await replay.json()).id).toBe((await first.json()).id);
    expect(await t.database.db.select().from(skills).where(eq(skills.key, body.key))).toHaveLength(1);
  });

  it('refuses a key already used by a live Skill', async () => {
    const skill = await createSkill();
    const again = await t.request('POST', base(), { apiKey: admin, body: { key: skill.key, displayName: 'Again', ...versionBody() } });
    expect(again.status).toBe(409);
    expect((await errorOf(again)).details?.path).toBe('body.key');
  });

  it.each([
    ['../x.md', 'body.files.0.path'],
    ['/abs.md', 'body.files.0.path'],
    ['a//b.md', 'body.files.0.path'],
    ['a\\b.md', 'body.files.0.path'],
    ['notes.txt', 'body.files.0.path'],
    ['SKILL.md', 'body.files.0.path'],
  ])('refuses the file path %j with details.path', async (path, detailsPath) => {
    const response = await t.request('POST', base(), { apiKey: admin, body: { key: nextKey(), displayName: 'x', ...versionBody({ files: [md(path)] }) } });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('bad_request');
    expect(error.details?.path).toBe(detailsPath);
  });

  it.each([
    [
      'non-UTF-8 bytes',
      { files: [{ path: 'a.md', contentType: 'text/markdown', dataBase64: Buffer.from([0xc3, 0x28]).toString('base64') }] },
      'body.files.0.dataBase64',
    ],
    ['bad base64', { files: [{ path: 'a.md', contentType: 'text/markdown', dataBase64: 'not base64!' }] }, 'body.files.0.dataBase64'],
    ['another content type', { files: [{ ...md('a.md'), contentType: 'text/plain' }] }, 'body.files.0.contentType'],
    ['case-only duplicate paths', { files: [md('a.md'), md('A.md')] }, 'body.files.1.path'],
    ['a bad name', { name: 'PDF Tools' }, 'body.name'],
    ['a missing description', { description: undefined }, 'body.description'],
    ['an unknown field', { extra: true }, 'body.extra'],
  ])('refuses %s with details.path', async (_label, overrides, detailsPath) => {
    const response = await t.request('POST', base(), { apiKey: admin, body: { key: nextKey(), displayName: 'x', ...versionBody(overrides) } });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details?.path).toBe(detailsPath);
  });

  it('takes a package of the total size limit and refuses one byte more', async () => {
    const full = 'a'.repeat(SKILL_FILE_MAX_BYTES);
    const files = Array.from({ length: SKILL_PACKAGE_MAX_BYTES / SKILL_FILE_MAX_BYTES }, (_, index) => md(`f${index}.md`, full));
    const fits = await t.request('POST', base(), { apiKey: admin, body: { key: nextKey(), displayName: 'Big', ...versionBody({ files }) } });
    expect(fits.status).toBe(201);
    const over = await t.request('POST', base(), {
      apiKey: admin,
      body: { key: nextKey(), displayName: 'Big', ...versionBody({ files: [...files, md('x.md', 'x')] }) },
    });
    expect(over.status).toBe(400);
    expect((await errorOf(over)).details?.path).toBe('body.files');
  });

  it('answers 404 for another project’s Skill, and facts carry its project', async () => {
    const project = await (await t.request('POST', '/v1/projects', { apiKey: admin, body: { slug: 'skills-other', name: 'Other' } })).json();
    const foreign = await createSkill({}, project.id);
    for (const [method, path, body] of [
      ['GET', `${base()}/${foreign.id}`],
      ['PATCH', `${base()}/${foreign.id}`, { enabled: false }],
      ['POST', `${base()}/${foreign.id}/versions`, versionBody({ instructions: 'x' })],
      ['GET', `${base()}/${foreign.id}/versions/${foreign.versions[0].id}/export`],
      ['DELETE', `${base()}/${foreign.id}`],
    ] as Array<[string, string, unknown?]>) {
      expect((await t.request(method, path, { apiKey: admin, body })).status, `${method} ${path}`).toBe(404);
    }
    const facts = await loadSkillVersionFacts(t.database.db, { organizationId, ids: [foreign.versions[0].id, 'not-a-uuid', crypto.randomUUID()] });
    expect([...facts.values()]).toEqual([
      {
        skillVersionId: foreign.versions[0].id,
        skillId: foreign.id,
        projectId: project.id,
        name: 'pdf-tools',
        skillEnabled: true,
        skillRemoved: false,
        status: 'active',
      },
    ]);
  });
});

describe('versions and export', () => {
  it('publishes the next version; identical content conflicts', async () => {
    const skill = await createSkill();
    const next = await t.request('POST', `${base()}/${skill.id}/versions`, { apiKey: without['skill:revoke'], body: versionBody({ instructions: 'v2' }) });
    expect(next.status).toBe(201);
    expect(await next.json()).toMatchObject({ version: 2, skillId: skill.id, status: 'active' });
    // The same package as version 1, with files in another order: same content hash.
    const same = await t.request('POST', `${base()}/${skill.id}/versions`, { apiKey: admin, body: versionBody() });
    expect(same.status).toBe(409);
    const detail = await (await t.request('GET', `${base()}/${skill.id}`, { apiKey: admin })).json();
    expect(detail.versions.map((version: { version: number }) => version.version)).toEqual([1, 2]);
    expect(detail.latestVersion.version).toBe(2);
  });

  it('export gives back the exact instructions and bytes, and a SKILL.md', async () => {
    const tricky = '\ufeff# Ünïcødé ✓\r\nCRLF line\r\n\ttab\n\n🙂 end without newline';
    const instructions = '# Exact\n\n  leading spaces, trailing spaces  \n\n---\nnot frontmatter';
    const skill = await createSkill(versionBody({ instructions, compatibility: 'Needs "python3"', files: [md('b.md', tricky), md('a/z.md', '')] }));
    const response = await t.request('GET', `${base()}/${skill.id}/versions/${skill.versions[0].id}/export`, { apiKey: without['skill:write'] });
    expect(response.status).toBe(200);
    const exported = await response.json();
    expect(exported.instructions).toBe(instructions);
    expect(exported.files.map((file: { path: string }) => file.path)).toEqual(['a/z.md', 'b.md']);
    expect(Buffer.from(exported.files[1].dataBase64, 'base64').equals(Buffer.from(tricky, 'utf8'))).toBe(true);
    expect(exported.files[0].dataBase64).toBe('');
    expect(exported).toMatchObject({
      skillId: skill.id,
      skillVersionId: skill.versions[0].id,
      version: 1,
      contentHash: skill.versions[0].contentHash,
      compatibility: 'Needs "python3"',
    });
    expect(exported.skillMd).toBe(`---\nname: pdf-tools\ndescription: "Work with PDF files."\ncompatibility: "Needs \\"python3\\""\n---\n${instructions}`);
  });
});

describe('enable and disable', () => {
  it('emits skill.disabled / skill.enabled only when the state changes', async () => {
    const skill = await createSkill();
    const path = `${base()}/${skill.id}`;
    const disabled = await t.request('PATCH', path, { apiKey: without['skill:write'], body: { enabled: false } });
    expect(disabled.status).toBe(200);
    const body = await disabled.json();
    expect(body).toEqual({ id: skill.id, key: skill.key, enabled: false, disabledAt: expect.any(String) });
    const again = await t.request('PATCH', path, { apiKey: admin, body: { enabled: false } });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);

    const list = await (await t.request('GET', `${base()}?limit=200`, { apiKey: admin })).json();
    expect(list.data.find((item: { id: string }) => item.id === skill.id)).toMatchObject({ enabled: false, disabledAt: body.disabledAt });
    // A disabled Skill still takes new versions.
    expect((await t.request('POST', `${path}/versions`, { apiKey: admin, body: versionBody({ instructions: 'while disabled' }) })).status).toBe(201);

    expect((await t.request('PATCH', path, { apiKey: admin, body: { enabled: true } })).status).toBe(200);
    expect(await (await t.request('PATCH', path, { apiKey: admin, body: { enabled: true } })).json()).toEqual({
      id: skill.id,
      key: skill.key,
      enabled: true,
      disabledAt: null,
    });

    const events = await skillEvents(skill.id);
    expect(events.map((event) => event.kind)).toEqual(['skill.disabled', 'skill.enabled']);
    expect(events[0]).toMatchObject({
      aggregateType: 'skill',
      publicPayload: { skillId: skill.id, key: skill.key, enabled: false, disabledAt: body.disabledAt },
    });
  });

  it('rejects a body without a boolean', async () => {
    const skill = await createSkill();
    const response = await t.request('PATCH', `${base()}/${skill.id}`, { apiKey: admin, body: { enabled: 'no' } });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details?.path).toBe('body.enabled');
  });
});

describe('version lifecycle', () => {
  it('active → deprecated → revoked; revoked is final; repeats are 200', async () => {
    const skill = await createSkill();
    const path = `${base()}/${skill.id}/versions/${skill.versions[0].id}/lifecycle`;
    const set = (status: string) => t.request('PATCH', path, { apiKey: without['skill:write'], body: { status } });

    const deprecated = await set('deprecated');
    expect(deprecated.status).toBe(200);
    expect(await deprecated.json()).toMatchObject({ id: skill.versions[0].id, status: 'deprecated' });
    expect((await set('deprecated')).status).toBe(200);
    expect(await (await set('revoked')).json()).toMatchObject({ status: 'revoked' });
    expect((await set('revoked')).status).toBe(200);
    const back = await set('deprecated');
    expect(back.status).toBe(409);
    expect((await errorOf(back)).code).toBe('conflict');
    expect((await set('active')).status).toBe(400);

    const other = await createSkill();
    const revokedDirectly = await t.request('PATCH', `${base()}/${other.id}/versions/${other.versions[0].id}/lifecycle`, {
      apiKey: admin,
      body: { status: 'revoked' },
    });
    expect(await revokedDirectly.json()).toMatchObject({ status: 'revoked' });
    const facts = await loadSkillVersionFacts(t.database.db, { organizationId, ids: [other.versions[0].id] });
    expect(facts.get(other.versions[0].id)?.status).toBe('revoked');
  });

  it('a version of another Skill is 404', async () => {
    const [a, b] = [await createSkill(), await createSkill()];
    const response = await t.request('PATCH', `${base()}/${a.id}/versions/${b.versions[0].id}/lifecycle`, { apiKey: admin, body: { status: 'deprecated' } });
    expect(response.status).toBe(404);
  });
});

describe('removal', () => {
  it('removes irreversibly: 404 afterwards, drafts discarded, key free, versions kept, skill.deleted', async () => {
    const skill = await createSkill();
    const path = `${base()}/${skill.id}`;
    const draft = await (
      await t.request('POST', `/v1/projects/${projectId}/skill-drafts`, {
        apiKey: admin,
        body: { skillId: skill.id, sourceSkillVersionId: skill.versions[0].id },
      })
    ).json();

    const removed = await t.request('DELETE', path, { apiKey: without['skill:write'] });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ id: skill.id, key: skill.key, deleted: true });

    for (const [method, target, body] of [
      ['GET', path],
      ['PATCH', path, { enabled: false }],
      ['POST', `${path}/versions`, versionBody({ instructions: 'after' })],
      ['GET', `${path}/versions/${skill.versions[0].id}/export`],
      ['PATCH', `${path}/versions/${skill.versions[0].id}/lifecycle`, { status: 'revoked' }],
      ['DELETE', path],
      ['GET', `/v1/projects/${projectId}/skill-drafts/${draft.id}`],
    ] as Array<[string, string, unknown?]>) {
      expect((await t.request(method, target, { apiKey: admin, body })).status, `${method} ${target}`).toBe(404);
    }
    const list = await (await t.request('GET', `${base()}?limit=200`, { apiKey: admin })).json();
    expect(list.data.map((item: { id: string }) => item.id)).not.toContain(skill.id);
    expect(await t.database.db.select().from(skillVersions).where(eq(skillVersions.skillId, skill.id))).toHaveLength(1);
    const facts = await loadSkillVersionFacts(t.database.db, { organizationId, ids: [skill.versions[0].id] });
    expect(facts.get(skill.versions[0].id)).toMatchObject({ skillRemoved: true, skillId: skill.id });

    const reused = await createSkill({ key: skill.key });
    expect(reused.id).not.toBe(skill.id);
    expect((await skillEvents(skill.id)).map((event) => event.kind)).toEqual(['skill.deleted']);
  });
});

async function sha256(bytes: Buffer): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(bytes).digest('hex');
}
