import Anthropic, { BadRequestError, ConflictError, NotFoundError, PermissionDeniedError, toFile } from '@anthropic-ai/sdk';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunApp } from '../../../test/support/run-app.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { recordSdkRequests } from '../../../test/support/anthropic-sdk.ts';

/**
 * Skills of the Claude Managed Agents–compatible API (issue 32) driven by the official
 * `@anthropic-ai/sdk`, unmodified, its `baseURL` pointed at `/compat/anthropic` of a served app.
 * Every request the SDK makes is recorded, so retries are counted.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;

const requests = recordSdkRequests();
const counted = requests.counted;

const sdk = (options: { apiKey?: string } = {}) =>
  new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey: options.apiKey ?? f.apiKey, fetch: requests.fetch });

beforeAll(async () => {
  // No runs here: no worker, but the `fast` preset agents need.
  f = await startRunApp({ runtime: 'later' });
  served = await serveApp(f.t.app.fetch);
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

const skillMd = (name: string, description: string, body = `# ${name}\n\nFollow the steps.\n`) =>
  `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\nmetadata:\n  version: "1.0"\n---\n${body}`;

/** An upload as the SDK's users build it: `toFile` with the relative path as the filename. */
const files = (entries: Record<string, string>) => Promise.all(Object.entries(entries).map(([path, text]) => toFile(Buffer.from(text), path)));

const errorBody = (error: unknown) => (error as { error: { error: { type: string; message: string; details?: Record<string, unknown> } } }).error.error;

/** The entries of a zip (central directory), each checked against its local header and CRC-32. */
function unzip(zip: Buffer): Map<string, string> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThanOrEqual(0);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, string>();
  for (let index = 0; index < count; index++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    expect(zip.readUInt16LE(at + 10)).toBe(0); // stored
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const offset = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    expect(zip.readUInt32LE(offset)).toBe(0x04034b50);
    const localName = zip.readUInt16LE(offset + 26);
    const data = zip.subarray(offset + 30 + localName + zip.readUInt16LE(offset + 28), offset + 30 + localName + zip.readUInt16LE(offset + 28) + size);
    expect(crc32(data)).toBe(zip.readUInt32LE(at + 16));
    entries.set(name, data.toString('utf8'));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

describe('Skills through the SDK', () => {
  it('creates, retrieves, lists, publishes, lists and retrieves versions, downloads, deletes a version and the Skill', async () => {
    const client = sdk();
    const skill = await client.beta.skills.create({
      display_name: 'Form filler',
      files: await files({ 'form-filler/SKILL.md': skillMd('form-filler', 'Fills forms.'), 'form-filler/docs/fields.md': '# Fields\n' }),
    });
    expect(skill).toMatchObject({ type: 'skill', display_name: 'Form filler', source: { type: 'custom' } });
    const v1 = skill.latest_version_id;
    // The same Skill through the native API: key = SKILL.md name, the directory stripped.
    const native = await f.call('GET', `/skills/${skill.id}`);
    expect(native.body).toMatchObject({ key: 'form-filler', displayName: 'Form filler' });
    expect(native.body.versions[0]).toMatchObject({ id: v1, name: 'form-filler', description: 'Fills forms.', license: 'MIT', metadata: { version: '1.0' } });
    expect(native.body.versions[0].files.map((file: { path: string }) => file.path)).toEqual(['docs/fields.md']);

    expect(await client.beta.skills.retrieve(skill.id)).toEqual(skill);
    // The GA surface has the same paths and shapes.
    expect(await client.skills.retrieve(skill.id)).toEqual(skill);
    const listed = [];
    for await (const item of client.beta.skills.list({ limit: 1000 })) listed.push(item.id);
    expect(listed).toContain(skill.id);
    expect((await client.beta.skills.list({ source: 'anthropic' })).data).toEqual([]);
    expect((await client.beta.skills.list({ source: 'custom' })).data.map((item) => item.id)).toContain(skill.id);

    const v2 = await client.beta.skills.versions.create(skill.id, {
      files: await files({ 'form-filler/SKILL.md': skillMd('form-filler', 'Fills forms, faster.') }),
    });
    expect(v2).toMatchObject({ type: 'skill_version', skill_id: skill.id, name: 'form-filler', description: 'Fills forms, faster.' });
    expect((await client.beta.skills.retrieve(skill.id)).latest_version_id).toBe(v2.id);
    const versions = [];
    for await (const version of client.beta.skills.versions.list(skill.id, { limit: 1 })) versions.push(version.id);
    expect(versions).toEqual([v2.id, v1]);
    expect(await client.beta.skills.versions.retrieve(v2.id, { skill_id: skill.id })).toEqual(v2);

    const download = await client.beta.skills.versions.download(v1, { skill_id: skill.id });
    expect(download.headers.get('content-type')).toBe('application/zip');
    const entries = unzip(Buffer.from(await download.arrayBuffer()));
    expect([...entries.keys()]).toEqual(['form-filler/SKILL.md', 'form-filler/docs/fields.md']);
    expect(entries.get('form-filler/SKILL.md')).toMatch(/^---\nname: form-filler\ndescription: "Fills forms."\n/);
    expect(entries.get('form-filler/SKILL.md')).toMatch(/---\n# form-filler\n\nFollow the steps.\n$/);
    expect(entries.get('form-filler/docs/fields.md')).toBe('# Fields\n');

    // Deleting a version revokes it (ours); for the SDK it is gone.
    expect(await client.beta.skills.versions.delete(v2.id, { skill_id: skill.id })).toEqual({ id: v2.id, type: 'skill_version_deleted' });
    expect((await f.call('GET', `/skills/${skill.id}`)).body.versions[1].status).toBe('revoked');
    expect((await client.beta.skills.versions.list(skill.id)).data.map((version) => version.id)).toEqual([v1]);
    expect((await client.beta.skills.retrieve(skill.id)).latest_version_id).toBe(v1);
    const goneVersion = await counted(() => client.beta.skills.versions.retrieve(v2.id, { skill_id: skill.id }));
    expect(goneVersion.error).toBeInstanceOf(NotFoundError);

    expect(await client.beta.skills.delete(skill.id)).toEqual({ id: skill.id, type: 'skill_deleted' });
    const gone = await counted(() => client.beta.skills.retrieve(skill.id));
    expect(gone.error).toBeInstanceOf(NotFoundError);
    expect(gone.attempts).toBe(1);
    expect((await counted(() => client.beta.skills.retrieve('skill_01NotAUuid'))).error).toBeInstanceOf(NotFoundError);
  });

  it('answers a taken name with BetaSkillNameTakenError at once', async () => {
    const client = sdk();
    const upload = async () => ({ files: await files({ 'dup/SKILL.md': skillMd('duplicate-name', 'First.') }) });
    await client.beta.skills.create(await upload());
    const taken = await counted(async () => client.beta.skills.create(await upload()));
    expect(taken.error).toBeInstanceOf(ConflictError);
    expect((taken.error as Error).constructor.name).toBe('BetaSkillNameTakenError');
    expect(taken.attempts).toBe(1);
    expect((taken.error as ConflictError).headers?.get('x-should-retry')).toBe('false');
    expect(errorBody(taken.error)).toMatchObject({ type: 'conflict_error', details: { error_code: 'skill_name_taken', skill_name: 'duplicate-name' } });
  });

  it('refuses a non-Markdown file, a layout without one directory holding SKILL.md, and another name for a version, writing nothing', async () => {
    const client = sdk();
    const before = (await f.call('GET', '/skills?limit=100')).body.data.length;
    const script = await counted(async () =>
      client.beta.skills.create({ files: await files({ 'tools/SKILL.md': skillMd('tools', 'Tools.'), 'tools/scripts/run.py': 'print(1)\n' }) }),
    );
    expect(script.error).toBeInstanceOf(BadRequestError);
    expect(script.attempts).toBe(1);
    expect(errorBody(script.error)).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('tools/scripts/run.py') });
    const twoDirectories = await counted(async () =>
      client.beta.skills.create({ files: await files({ 'a/SKILL.md': skillMd('tools', 'Tools.'), 'b/notes.md': '# n' }) }),
    );
    expect(errorBody(twoDirectories.error).message).toMatch(/^files\[\]: all files must share one top-level directory/);
    const noManifest = await counted(async () => client.beta.skills.create({ files: await files({ 'tools/README.md': '# r' }) }));
    expect(errorBody(noManifest.error).message).toContain('"tools/SKILL.md" is missing');
    expect((await f.call('GET', '/skills?limit=100')).body.data.length).toBe(before);

    const skill = await client.beta.skills.create({ files: await files({ 'tools/SKILL.md': skillMd('tools', 'Tools.') }) });
    const renamed = await counted(async () =>
      client.beta.skills.versions.create(skill.id, { files: await files({ 'tools/SKILL.md': skillMd('other-tools', 'Tools.') }) }),
    );
    expect(renamed.error).toBeInstanceOf(BadRequestError);
    expect(errorBody(renamed.error).message).toContain('"other-tools" must be the Skill\'s name "tools"');
    expect((await client.beta.skills.versions.list(skill.id)).data).toHaveLength(1);
  });

  it('needs the native scopes', async () => {
    const reader = (await f.t.createApiKey(['skill:read'])).secret;
    const denied = await counted(async () => sdk({ apiKey: reader }).beta.skills.create({ files: await files({ 'r/SKILL.md': skillMd('reader', 'No.') }) }));
    expect(denied.error).toBeInstanceOf(PermissionDeniedError);
    expect(denied.attempts).toBe(1);
    expect((await sdk({ apiKey: reader }).beta.skills.list()).data).toBeInstanceOf(Array);
  });

  it('an agent created with a custom Skill pins its latest version that is not revoked, and shows it', async () => {
    const client = sdk();
    const skill = await client.beta.skills.create({ files: await files({ 'pinned/SKILL.md': skillMd('pinned', 'Version one.') }) });
    const latest = await client.beta.skills.versions.create(skill.id, { files: await files({ 'pinned/SKILL.md': skillMd('pinned', 'Version two.') }) });
    const agent = await client.beta.agents.create({ name: 'Skilled', model: 'fast', skills: [{ type: 'custom', skill_id: skill.id }] });
    const native = await f.call('GET', `/agents/${agent.id}`);
    expect(native.body.versions[0].config.skillVersionIds).toEqual([latest.id]);
    expect(agent.skills).toEqual([{ type: 'custom', skill_id: skill.id, version: latest.id }]);
    await client.beta.skills.versions.delete(latest.id, { skill_id: skill.id });
    const later = await client.beta.agents.create({ name: 'Skilled later', model: 'fast', skills: [{ type: 'custom', skill_id: skill.id }] });
    expect(later.skills[0]!.version).not.toBe(latest.id);
    expect(later.skills[0]!.version).toBe((await client.beta.skills.retrieve(skill.id)).latest_version_id);
  });
});
