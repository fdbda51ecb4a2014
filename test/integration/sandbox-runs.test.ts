import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { workspaceBackups } from '../../db/schema/index.ts';
import { canStartEgressTestHost, startEgressTestHost, type EgressTestHost } from '../support/egress-test-host.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Sandboxed runs end to end: a real worker, real bubblewrap sandboxes on the built-in host-/usr
 * snapshot, real S3 (moto) for attachments and workspace backups, and the fake vendor_a scripting
 * the agent's tool calls. What the agent writes is downloadable after the run, an attachment
 * reaches the sandbox byte for byte, escapes fail, and a corrupted backup answers 409.
 */

let f: Awaited<ReturnType<typeof startRunApp>>;
let s3: S3Client;
// Listens on every address of this host; the egress test host forwards to it.
let hostServer: Server;
let hostPort: number;
let testHost: EgressTestHost | null = null;
// Connections that reached this host other than through the test host: sandboxes must make none.
let directConnections = 0;
const bucket = `svc-runs-${crypto.randomUUID().slice(0, 8)}`;
let agentId: string;
const CSV = Buffer.from('id,name\n1,Ada\n2,Grace\n\u00e9t\u00e9\n', 'utf8');

beforeAll(async () => {
  const server = inject('s3');
  s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  hostServer = createServer((req, res) => {
    if (req.url === '/page') {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>Fixture page</title><h1>Quarterly report</h1><a href="/next">Next page</a><button>Approve</button>');
    } else if (req.url === '/next') {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>Second page</title><p>Thanks</p>');
    } else res.end('host secret page');
  });
  hostServer.on('connection', (socket) => {
    if (socket.remoteAddress?.replace(/^::ffff:/, '') !== testHost?.address) directConnections += 1;
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '::', resolve));
  hostPort = (hostServer.address() as AddressInfo).port;
  if (canStartEgressTestHost) {
    testHost = await startEgressTestHost();
    await testHost.expose(hostPort);
  }
  // The egress test host sits at a private address: development's private-network setting.
  f = await startRunApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  const storage = await f.call('POST', '/storage-providers', {
    key: 'files',
    displayName: 'Files',
    providerType: 's3',
    endpoint: server.endpoint,
    region: server.region,
    bucket,
    prefix: 'svc',
    forcePathStyle: true,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
  });
  expect(storage.status).toBe(201);
  const provider = await f.call('POST', '/sandbox-providers', { key: 'local', displayName: 'Local', providerType: 'sandbox_vendor', apiKey: 'local' });
  const snapshotId = (await f.call('GET', `/sandbox-providers/${provider.body.id}/snapshots`)).body.data[0].id;
  const agent = await f.call('POST', '/agents', {
    name: 'Sandboxed worker',
    initialConfig: {
      systemPrompt: 'Use the sandbox.',
      modelPreset: 'fast',
      limits: { maxTurns: 8 },
      sandbox: { enabled: true, provider: 'local', snapshotId, network: 'none', capabilities: ['filesystem_read', 'filesystem_write', 'shell'] },
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  agentId = agent.body.id;
}, 120_000);

afterAll(async () => {
  await f?.close();
  s3?.destroy();
  hostServer?.closeAllConnections();
  await new Promise<void>((resolve) => hostServer?.close(() => resolve()));
  await testHost?.close();
});

/** The tool results the model received in its last request (vendor_a function_call_output items). */
function toolOutputs(): Array<Record<string, any>> {
  const input = (f.fakes.vendor_a.requests.at(-1)!.body as { input: Array<Record<string, unknown>> }).input;
  return input.filter((item) => item.type === 'function_call_output').map((item) => JSON.parse(String(item.output)));
}

describe('sandboxed runs', () => {
  let sessionId: string;
  let runId: string;

  it('writes a file, runs bash on an attachment, and backs the workspace up', async () => {
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'write', arguments: { path: 'notes/hello.md', content: '# Hello\n' } }] })
      .reply({ toolCalls: [{ name: 'bash', arguments: { command: 'cat notes/hello.md; sha256sum .svc/attachments/*/people.csv; id -u' } }] })
      .reply({ toolCalls: [{ name: 'edit', arguments: { path: 'notes/hello.md', oldText: 'Hello', newText: 'Hello, sandbox' } }] })
      .reply({
        toolCalls: [
          { name: 'read', arguments: { path: 'notes/hello.md' } },
          { name: 'glob', arguments: { pattern: '**/*.md' } },
          { name: 'grep', arguments: { pattern: 'sand', path: 'notes' } },
        ],
      })
      .reply({ text: 'Done.' });
    const session = await f.call('POST', '/sessions', {
      agentId,
      initialMessage: 'Take notes.',
      files: [{ name: 'people.csv', contentType: 'text/csv', dataBase64: CSV.toString('base64') }],
    });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    sessionId = session.body.id;
    runId = session.body.latestRunId;
    const run = await f.waitForRun(runId, undefined, 90_000);
    expect(run.state, JSON.stringify(run.failure)).toBe('completed');

    // The model was told where the file is, never its bytes.
    const firstRequest = JSON.stringify(f.fakes.vendor_a.requests.at(-5)!.body);
    expect(firstRequest).toContain(`.svc/attachments/${runId}/people.csv`);
    expect(firstRequest).not.toContain('Grace');

    // The last request carries every tool result of the run, in order; the final turn's three come last.
    const [read, glob, grep] = toolOutputs().slice(-3);
    expect(read).toMatchObject({ path: 'notes/hello.md', content: '# Hello, sandbox\n' });
    expect(glob!.files).toEqual(['notes/hello.md']);
    expect(grep!.matches).toEqual(['notes/hello.md:1:# Hello, sandbox']);
    const bashRequest = JSON.stringify(f.fakes.vendor_a.requests.at(-4)!.body);
    expect(bashRequest).toContain(createHash('sha256').update(CSV).digest('hex'));
    expect(bashRequest).toContain('# Hello');

    const backups = await f.t.database.db.select().from(workspaceBackups).where(eq(workspaceBackups.runId, runId));
    expect(backups).toHaveLength(1);
    const files = await f.call('GET', `/sessions/${sessionId}/files`);
    expect(files.status).toBe(200);
    expect(files.body).toMatchObject({ generation: 1, lastRunId: runId, backedUpAt: expect.any(String) });
    expect(files.body.data).toEqual([
      { name: 'people.csv', path: `.svc/attachments/${runId}/people.csv`, sizeBytes: CSV.length },
      { name: 'hello.md', path: 'notes/hello.md', sizeBytes: '# Hello, sandbox\n'.length },
    ]);
  }, 120_000);

  it('downloads a file exactly, with the listed headers', async () => {
    const project = `/v1/projects/${(await f.call('GET', '/agents')).body.data[0].projectId}`;
    const download = async (path: string) =>
      f.t.request('GET', `${project}/sessions/${sessionId}/files/${path}`, { apiKey: (await f.t.createApiKey(['session:read'])).secret });
    const note = await download('notes/hello.md');
    expect(note.status).toBe(200);
    expect(await note.text()).toBe('# Hello, sandbox\n');
    expect(note.headers.get('content-type')).toBe('application/octet-stream');
    expect(note.headers.get('content-disposition')).toBe(`attachment; filename="hello.md"; filename*=UTF-8''hello.md`);
    expect(note.headers.get('content-length')).toBe(String('# Hello, sandbox\n'.length));
    expect(note.headers.get('cache-control')).toBe('no-store');
    expect(note.headers.get('x-content-type-options')).toBe('nosniff');
    // The attachment went S3 → sandbox → backup → download byte for byte.
    const csv = await download(`.svc/attachments/${runId}/people.csv`);
    expect(Buffer.from(await csv.arrayBuffer()).equals(CSV)).toBe(true);
    expect((await download('notes/missing.md')).status).toBe(404);
    expect((await download('notes')).status).toBe(404);
    expect((await download('notes/..%2F..%2Fetc/passwd')).status).toBe(400);
    expect((await download('notes/bad%00name.md')).status).toBe(400);
    expect((await download('notes/back%5Cslash.md')).status).toBe(400);
  });

  it('forks from the latest run with a copy of the workspace, which the fork’s run then works in', async () => {
    const fork = await f.call('POST', `/sessions/${sessionId}/fork`, { fromRunId: runId, title: 'Forked workspace' });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    expect(fork.body).toMatchObject({ status: 'idle', run: null, workspace: 'copied', forkedFrom: { sessionId, runId } });
    const forkId = fork.body.id as string;
    const copied = await f.t.database.db.select().from(workspaceBackups).where(eq(workspaceBackups.workspaceSessionId, forkId));
    expect(copied.map((row) => [row.generation, row.runId])).toEqual([[1, runId]]);
    const files = await f.call('GET', `/sessions/${forkId}/files`);
    expect(files.status).toBe(200);
    expect(files.body.data).toEqual((await f.call('GET', `/sessions/${sessionId}/files`)).body.data);
    const project = `/v1/projects/${f.projectId}`;
    const note = await f.t.request('GET', `${project}/sessions/${forkId}/files/notes/hello.md`, { apiKey: f.apiKey });
    expect(await note.text()).toBe('# Hello, sandbox\n');

    // The fork's first run restores the copy: the agent reads the note and appends to it.
    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'read', arguments: { path: 'notes/hello.md' } },
          { name: 'write', arguments: { path: 'notes/fork.md', content: 'fork only\n' } },
        ],
      })
      .reply({ text: 'Read it.' });
    const turn = await f.call('POST', `/sessions/${forkId}/runs`, { message: 'Read your notes.' });
    expect(turn.status).toBe(202);
    expect((await f.waitForRun(turn.body.id, undefined, 90_000)).state).toBe('completed');
    const [read] = toolOutputs().slice(-2);
    expect(read).toMatchObject({ path: 'notes/hello.md', content: '# Hello, sandbox\n' });
    const forkFiles = (await f.call('GET', `/sessions/${forkId}/files`)).body.data.map((file: { path: string }) => file.path);
    expect(forkFiles).toContain('notes/fork.md');
    const sourceFiles = (await f.call('GET', `/sessions/${sessionId}/files`)).body.data.map((file: { path: string }) => file.path);
    expect(sourceFiles).not.toContain('notes/fork.md');
    // A run of another session (here: the source’s, named on the fork) is refused.
    const older = await f.call('POST', `/sessions/${forkId}/fork`, { fromRunId: runId });
    expect(older.status).toBe(400);
  }, 120_000);

  it('keeps the agent inside its sandbox', async () => {
    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'read', arguments: { path: '../../etc/shadow' } },
          { name: 'write', arguments: { path: '/etc/owned', content: 'x' } },
        ],
      })
      .reply({
        toolCalls: [
          {
            name: 'bash',
            arguments: {
              command: `cat /etc/shadow; ls /work/main/package.json; touch /usr/owned; curl -sS --max-time 3 http://127.0.0.1:${hostPort}/ ; echo done`,
            },
          },
        ],
      })
      .reply({ text: 'Tried.' });
    const turn = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Try to get out.' });
    expect(turn.status).toBe(202);
    expect((await f.waitForRun(turn.body.id, undefined, 90_000)).state).toBe('completed');
    const bash = JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body);
    expect(bash).not.toContain('root:');
    expect(bash).not.toContain('host secret page');
    expect(bash).toMatch(/No such file or directory/);
    expect(bash).toMatch(/Read-only file system|Permission denied/);
    const escapes = JSON.stringify(f.fakes.vendor_a.requests.at(-2)!.body);
    expect(escapes).toContain('outside the workspace');
    const detail = await f.call('GET', `/sessions/${sessionId}`);
    expect(detail.body.debug.sandboxes).toHaveLength(1);
    expect(detail.body.debug.workspaceBackups.map((b: any) => b.generation)).toEqual([1, 2]);
    const commands = detail.body.debug.sandboxCommands;
    expect(commands.map((c: any) => c.toolName)).toEqual(expect.arrayContaining(['write', 'bash', 'edit', 'read', 'glob', 'grep']));
    const bashCommand = commands.find((c: any) => c.toolName === 'bash');
    expect(bashCommand.safeCommand).toMatchObject({ tool: 'bash', command: expect.stringContaining('cat notes/hello.md') });
    expect(bashCommand.safeResult).toMatchObject({ exitCode: 0, timedOut: false });
    expect(JSON.stringify(commands)).not.toContain('result_value');
  }, 120_000);

  it('fails the run when an attachment no longer matches its SHA-256', async () => {
    // Hold the run's start (the reconciler only picks up runs queued for a while) to tamper first.
    const live = f.starter.target;
    f.starter.target = null;
    const session = await f.call('POST', '/sessions', {
      agentId,
      initialMessage: 'Read it.',
      files: [{ name: 'a.txt', contentType: 'text/plain', dataBase64: Buffer.from('original').toString('base64') }],
    });
    const { attachments } = await import('../../db/schema/index.ts');
    const [row] = await f.t.database.db.select().from(attachments).where(eq(attachments.runId, session.body.latestRunId));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: row!.objectKey, Body: Buffer.from('tampered') }));
    f.starter.target = live;
    await f.starter.start({ runId: session.body.latestRunId, projectId: row!.projectId, sessionId: session.body.id, agentId });
    const run = await f.waitForRun(session.body.latestRunId, undefined, 60_000);
    expect(run.state).toBe('failed');
    expect(run.failure ?? (await f.call('GET', `/sessions/${session.body.id}`)).body.runs[0].failure).toMatchObject({
      errorCode: 'attachment_integrity_failed',
    });
  }, 90_000);

  it.skipIf(!canStartEgressTestHost)(
    'drives a browser inside the sandbox under the restricted network policy',
    async () => {
      const provider = await f.call('POST', '/sandbox-providers', {
        key: 'web',
        displayName: 'Web',
        providerType: 'sandbox_vendor',
        apiKey: 'local',
        restrictedEgress: { allowedDomains: [], allowedCidrs: [`${testHost!.address}/32`] },
      });
      const snapshotId = (await f.call('GET', `/sandbox-providers/${provider.body.id}/snapshots`)).body.data[0].id;
      const browserAgent = await f.call('POST', '/agents', {
        name: 'Browser',
        initialConfig: {
          systemPrompt: 'Browse.',
          modelPreset: 'fast',
          limits: { maxTurns: 6 },
          sandbox: { enabled: true, provider: 'web', snapshotId, network: 'restricted', capabilities: ['browser'] },
        },
      });
      expect(browserAgent.status, JSON.stringify(browserAgent.body)).toBe(201);
      f.fakes.vendor_a
        .reply({ toolCalls: [{ name: 'browser_navigate', arguments: { url: `http://${testHost!.address}:${hostPort}/page` } }] })
        .reply({ toolCalls: [{ name: 'browser_snapshot', arguments: {} }] })
        .reply({ toolCalls: [{ name: 'browser_interact', arguments: { action: 'click', ref: 'e1' } }] })
        .reply({ toolCalls: [{ name: 'browser_navigate', arguments: { url: `http://127.0.0.2:${hostPort}/page` } }] })
        .reply({ text: 'Browsed.' });
      const session = await f.call('POST', '/sessions', { agentId: browserAgent.body.id, initialMessage: 'Read the report.' });
      const run = await f.waitForRun(session.body.latestRunId, undefined, 120_000);
      expect(run.state, JSON.stringify(run.failure)).toBe('completed');
      const outputs = toolOutputs().slice(-4);
      expect(outputs[0]!).toMatchObject({ title: 'Fixture page', status: 200 });
      expect(outputs[1]!.snapshot).toContain('Quarterly report');
      expect(outputs[1]!.elements).toEqual(expect.arrayContaining([expect.objectContaining({ ref: 'e1', role: 'link', name: 'Next page' })]));
      expect(outputs[2]!).toMatchObject({ title: 'Second page' });
      // 127.0.0.2 is outside the allowlist: the proxy refuses it and the tool says so.
      const lastRequest = JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body);
      expect(lastRequest).toMatch(/network policy does not allow/);
      const detail = await f.call('GET', `/sessions/${session.body.id}`);
      expect(detail.body.debug.sandboxCommands.map((c: any) => c.toolName)).toEqual([
        'browser_navigate',
        'browser_snapshot',
        'browser_interact',
        'browser_navigate',
      ]);
    },
    180_000,
  );

  it.skipIf(!canStartEgressTestHost)(
    'keeps a model-driven bash call off the worker host, even under an allowlist of everything (issue 28)',
    async () => {
      // The allowlist refuses the worker host itself when it is saved ...
      for (const cidr of ['127.0.0.1/32', '127.0.0.0/8', '::1/128', '0.0.0.0/8']) {
        const refused = await f.call('POST', '/sandbox-providers', {
          key: 'loop',
          displayName: 'Loop',
          providerType: 'sandbox_vendor',
          apiKey: 'local',
          restrictedEgress: { allowedDomains: [], allowedCidrs: ['8.8.8.0/24', cidr] },
        });
        expect(refused.status, cidr).toBe(400);
        expect(refused.body.error).toMatchObject({
          code: 'bad_request',
          message: expect.stringContaining(`"${cidr}"`),
          details: { path: 'restrictedEgress.allowedCidrs.1' },
        });
      }
      // ... and a wide block is accepted, but opens only what the address policy allows.
      const provider = await f.call('POST', '/sandbox-providers', {
        key: 'open',
        displayName: 'Open',
        providerType: 'sandbox_vendor',
        apiKey: 'local',
        restrictedEgress: { allowedDomains: [], allowedCidrs: ['0.0.0.0/0', '::/0'] },
      });
      expect(provider.status, JSON.stringify(provider.body)).toBe(201);
      const snapshotId = (await f.call('GET', `/sandbox-providers/${provider.body.id}/snapshots`)).body.data[0].id;
      const agent = await f.call('POST', '/agents', {
        name: 'Curious',
        initialConfig: {
          systemPrompt: 'Look around.',
          modelPreset: 'fast',
          limits: { maxTurns: 4 },
          sandbox: { enabled: true, provider: 'open', snapshotId, network: 'restricted', capabilities: ['shell'] },
        },
      });
      expect(agent.status, JSON.stringify(agent.body)).toBe(201);
      const hostItself = ['127.0.0.1', '[::1]', '0.0.0.0', testHost!.hostSideAddress].map((target) => `http://${target}:${hostPort}/`);
      const command = [...hostItself, `http://${testHost!.address}:${hostPort}/page`]
        .map((url) => `curl -sS -m 5 -o /dev/null -w '%{http_code} ' ${url}`)
        .join('; ');
      f.fakes.vendor_a.reply({ toolCalls: [{ name: 'bash', arguments: { command } }] }).reply({ text: 'Looked.' });
      directConnections = 0;
      const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Find the admin page.' });
      const run = await f.waitForRun(session.body.latestRunId, undefined, 90_000);
      expect(run.state, JSON.stringify(run.failure)).toBe('completed');
      // Four refusals by the proxy, then the test host (a private address the setting allows) answers.
      expect(toolOutputs().at(-1)!).toMatchObject({ stdout: '403 403 403 403 200 ' });
      expect(directConnections).toBe(0);
    },
    120_000,
  );

  it('answers 409 without bytes when the backup is corrupted', async () => {
    const rows = await f.t.database.db.select().from(workspaceBackups).where(eq(workspaceBackups.workspaceSessionId, sessionId));
    const newest = rows.sort((a, b) => b.generation - a.generation)[0]!;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: newest.archiveKey, Body: Buffer.from('not the archive') }));
    const project = `/v1/projects/${newest.projectId}`;
    const key = (await f.t.createApiKey(['session:read'])).secret;
    const response = await f.t.request('GET', `${project}/sessions/${sessionId}/files/notes/hello.md`, { apiKey: key });
    expect(response.status).toBe(409);
    const body = await response.json();
    expect(body.error.code).toBe('conflict');
    expect(JSON.stringify(body)).not.toContain('Hello');
    // The listing reads only the manifest, still intact; a broken manifest is a 409 too.
    expect((await f.call('GET', `/sessions/${sessionId}/files`)).status).toBe(200);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: newest.manifestKey, Body: Buffer.from('{}') }));
    expect((await f.call('GET', `/sessions/${sessionId}/files`)).status).toBe(409);
  });
});
