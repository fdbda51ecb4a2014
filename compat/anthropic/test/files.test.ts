import Anthropic, { BadRequestError, NotFoundError, toFile } from '@anthropic-ai/sdk';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { startRunApp } from '../../../test/support/run-app.ts';
import { recordSdkRequests, untilEvent } from '../../../test/support/anthropic-sdk.ts';

/**
 * The Anthropic-compatible Files API and file content in messages (issue 32), driven by the
 * official `@anthropic-ai/sdk`: uploads stored in real S3 (moto) through our standalone uploads,
 * image and document blocks as turn files of an `agent_toolset_20260401` agent (our sandbox), a
 * turn's attachments and a session's workspace files readable as files.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let s3: S3Client;
const bucket = `svc-cma-files-${crypto.randomUUID().slice(0, 8)}`;
const requests = recordSdkRequests();
const { sent } = requests;
const counted = requests.counted;
const sdk = () => new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey: f.apiKey, fetch: requests.fetch, maxRetries: 2 });
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2d6e26f0000000049454e44ae426082',
  'hex',
);

beforeAll(async () => {
  const server = inject('s3');
  s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  // moto listens on 127.0.0.1: development's private-network setting.
  f = await startRunApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  served = await serveApp(f.t.app.fetch);
  const storage = await f.call('POST', '/storage-providers', {
    key: 'files',
    displayName: 'Files',
    providerType: 's3',
    endpoint: server.endpoint,
    region: server.region,
    bucket,
    prefix: null,
    forcePathStyle: true,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
  });
  expect(storage.status).toBe(201);
  const sandbox = await f.call('POST', '/sandbox-providers', { key: 'local', displayName: 'Local', providerType: 'sandbox_vendor', apiKey: 'local' });
  expect(sandbox.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
  s3?.destroy();
});

describe('files through the SDK', () => {
  it('uploads, reads, downloads, lists and deletes; a retried upload is stored once; bad files are a 400', async () => {
    const client = sdk();
    const text = 'quarterly numbers\n';
    requests.loseResponseOf((request) => request.method === 'POST' && request.url.endsWith('/v1/files'));
    const before = sent.length;
    const uploaded = await client.beta.files.upload({ file: await toFile(Buffer.from(text), 'numbers.txt', { type: 'text/plain' }) });
    // (The SDK probes FormData support with a `data:` request of its own first.)
    expect(
      sent
        .slice(before)
        .filter((request) => request.url.startsWith('http'))
        .map((request) => `${request.method} ${new URL(request.url).pathname} ${request.retry}`),
    ).toEqual(['POST /compat/anthropic/v1/files 0', 'POST /compat/anthropic/v1/files 1']);
    expect(uploaded).toEqual({
      id: expect.any(String),
      type: 'file',
      filename: 'numbers.txt',
      mime_type: 'text/plain',
      size_bytes: text.length,
      created_at: expect.any(String),
      downloadable: true,
      expires_at: null,
      scope: null,
    });
    const listed = [];
    for await (const file of client.beta.files.list()) listed.push(file);
    expect(listed.filter((file) => file.filename === 'numbers.txt')).toHaveLength(1);
    expect(await client.beta.files.retrieveMetadata(uploaded.id)).toEqual(uploaded);
    expect(await (await client.beta.files.download(uploaded.id)).text()).toBe(text);
    // The GA surface is the same resource.
    expect((await client.files.retrieveMetadata(uploaded.id)).id).toBe(uploaded.id);

    const expiring = await client.beta.files.upload({
      file: await toFile(Buffer.from('soon'), 'soon.md', { type: 'text/markdown' }),
      expires_in_seconds: 3600,
    });
    expect(Date.parse(expiring.expires_at!) - Date.parse(expiring.created_at)).toBe(3_600_000);
    const exeFile = await toFile(Buffer.from('MZ'), 'tool.exe');
    const exe = await counted(() => client.beta.files.upload({ file: exeFile }));
    expect(exe.error).toBeInstanceOf(BadRequestError);
    expect(exe.attempts).toBe(1);

    expect(await client.beta.files.delete(uploaded.id)).toEqual({ id: uploaded.id, type: 'file_deleted' });
    expect((await counted(() => client.beta.files.retrieveMetadata(uploaded.id))).error).toBeInstanceOf(NotFoundError);
    expect((await counted(() => client.beta.files.retrieveMetadata('file_nope'))).error).toBeInstanceOf(NotFoundError);
  });
});

describe('files in messages, with the agent toolset', () => {
  it('image and document blocks become turn files of a toolset agent; attachments and workspace files read as files', async () => {
    const client = sdk();
    const refused = await counted(() =>
      client.beta.agents.create({ name: 'Web', model: 'fast', tools: [{ type: 'agent_toolset_20260401', configs: [{ name: 'web_fetch', enabled: true }] }] }),
    );
    expect(refused.error).toBeInstanceOf(BadRequestError);
    const agent = await client.beta.agents.create({ name: 'Reader', model: 'fast', tools: [{ type: 'agent_toolset_20260401' }] });
    const toolset = agent.tools[0] as { type: string; configs: Array<{ name: string; enabled: boolean }> };
    expect(toolset.type).toBe('agent_toolset_20260401');
    expect(Object.fromEntries(toolset.configs.map((config) => [config.name, config.enabled]))).toEqual({
      bash: true,
      edit: true,
      read: true,
      write: true,
      glob: true,
      grep: true,
      web_fetch: false,
      web_search: false,
    });
    const native = await f.call('GET', `/agents/${agent.id}`);
    expect(native.body.versions[0].config.sandbox).toMatchObject({
      enabled: true,
      provider: 'local',
      network: 'none',
      capabilities: ['shell', 'filesystem_write', 'filesystem_read'],
    });

    const report = await client.beta.files.upload({ file: await toFile(Buffer.from('%PDF-1.4 report'), 'report.pdf', { type: 'application/pdf' }) });
    const notes = await client.beta.files.upload({ file: await toFile(Buffer.from('# Notes'), 'notes.md', { type: 'text/markdown' }) });
    f.fakes.vendor_a.reply({ text: 'I have the files.' }).reply({ text: 'Still here.' });
    // A file resource arrives with the first turn.
    const session = await client.beta.sessions.create({
      agent: agent.id,
      environment_id: 'env_default',
      resources: [{ type: 'file', file_id: notes.id }],
      initial_events: [
        {
          type: 'user.message',
          content: [
            { type: 'text', text: 'Look at these.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } },
            { type: 'document', source: { type: 'file', file_id: report.id } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Inline words.' }, title: 'Memo' },
          ],
        },
      ],
    });
    const events = await untilEvent(client, session.id, 'agent.message');
    const message = events.find((event) => event.type === 'user.message') as { content: Array<Record<string, any>> };
    expect(message.content[0]).toEqual({ type: 'text', text: 'Look at these.\n\nMemo\nInline words.' });
    expect(message.content.slice(1).map((block) => block.type)).toEqual(['document', 'image', 'document']);
    const fileIds = message.content.slice(1).map((block) => block.source.file_id as string);
    const metas = await Promise.all(fileIds.map((id) => client.beta.files.retrieveMetadata(id)));
    expect(metas.map((meta) => [meta.filename, meta.mime_type, meta.scope])).toEqual([
      ['notes.md', 'text/markdown', { type: 'session', id: session.id }],
      ['image-2.png', 'image/png', { type: 'session', id: session.id }],
      ['report.pdf', 'application/pdf', { type: 'session', id: session.id }],
    ]);
    expect(Buffer.from(await (await client.beta.files.download(fileIds[1]!)).arrayBuffer()).equals(PNG)).toBe(true);
    expect((await counted(() => client.beta.files.delete(fileIds[1]!))).error).toBeInstanceOf(BadRequestError);
    // The model was told where the files are in its workspace.
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('image-2.png');

    // A message sent with a file later echoes what the list shows.
    const sentMessage = await client.beta.sessions.events.send(session.id, {
      events: [{ type: 'user.message', content: [{ type: 'image', source: { type: 'file', file_id: fileIdOfUpload(report.id) } }] }],
    });
    await untilEvent(client, session.id, 'agent.message', 2);
    const all = [];
    for await (const event of client.beta.sessions.events.list(session.id)) all.push(event);
    // (It may have waited behind the first turn's settlement: then it was answered unprocessed.)
    const echo = sentMessage.data![0]!;
    expect(all.find((event) => event.id === echo.id)).toEqual({ ...echo, processed_at: echo.processed_at ?? expect.any(String) });
    expect((sentMessage.data![0] as { content: unknown[] }).content).toHaveLength(1); // a files-only turn shows no text

    // The session's workspace files, from its latest backup.
    const workspace = [];
    for await (const file of client.beta.files.list({ scope_id: session.id })) workspace.push(file);
    const image = workspace.find((file) => file.filename === 'image-2.png');
    expect(image).toMatchObject({ id: expect.stringMatching(/^wsf_/), mime_type: 'image/png', scope: { type: 'session', id: session.id } });
    expect(Buffer.from(await (await client.beta.files.download(image!.id)).arrayBuffer()).equals(PNG)).toBe(true);
    expect((await counted(() => client.beta.files.delete(image!.id))).error).toBeInstanceOf(BadRequestError);

    const badSource = await counted(() =>
      client.beta.sessions.events.send(session.id, {
        events: [{ type: 'user.message', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }],
      }),
    );
    expect(badSource.error).toBeInstanceOf(BadRequestError);
    expect(JSON.stringify((badSource.error as BadRequestError).error)).toContain('events.0.content.0.source');
  }, 90_000);
});

describe('sandbox tools through the SDK', () => {
  it('a toolset agent runs its sandbox tools itself: agent.tool_use and agent.tool_result, which a SessionToolRunner of custom tools leaves alone', async () => {
    const { betaTool } = await import('@anthropic-ai/sdk/helpers/beta/json-schema');
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Shell', model: 'fast', tools: [{ type: 'agent_toolset_20260401' }] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'bash', arguments: { command: 'echo from-the-sandbox' } }] }).reply({ text: 'Ran it.' });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Run echo' }] }] });
    let ran = 0;
    // A runner with only custom tools (as the README says) leaves the sandbox call to the server.
    const lookup = betaTool({
      name: 'lookup',
      description: 'Looks up',
      inputSchema: { type: 'object', properties: {} },
      run: async () => {
        ran += 1;
        return 'looked up';
      },
    });
    const yielded: Array<{ name: string; posted: boolean }> = [];
    for await (const call of client.beta.sessions.events.toolRunner(session.id, { tools: [lookup], maxIdleMs: 1_500 }))
      yielded.push({ name: call.name, posted: call.posted });
    expect(yielded.every((call) => call.name === 'bash' && !call.posted)).toBe(true);
    const events = await untilEvent(client, session.id, 'agent.message');
    expect(ran).toBe(0);
    expect(sent.filter((request) => request.method === 'POST' && request.url.endsWith(`/sessions/${session.id}/events`))).toHaveLength(1);
    const use = events.find((event) => event.type === 'agent.tool_use') as { id: string; name: string; input: unknown; evaluated_permission: string };
    expect(use).toMatchObject({ name: 'bash', input: { command: 'echo from-the-sandbox' }, evaluated_permission: 'allow' });
    expect(events.find((event) => event.type === 'agent.tool_result')).toMatchObject({ tool_use_id: use.id, is_error: false });
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('from-the-sandbox');
  }, 90_000);
});

/** An upload's id is its file id. */
const fileIdOfUpload = (id: string) => id;
