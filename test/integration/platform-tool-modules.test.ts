import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunApp } from '../support/run-app.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

/**
 * Platform tools an operator registers by setting (SVC_PLATFORM_TOOL_MODULES): a module of the
 * operator's and the shipped `builtin:http_get` are called by a real run through the worker; a
 * module with problems stops `npm run worker` with one line per problem.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let page: Server;
let pageUrl: string;

beforeAll(async () => {
  page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Release notes</h1>'));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/notes`;
  f = await startRunApp({
    env: { SVC_PLATFORM_TOOL_MODULES: 'test/fixtures/platform-tools/word-count.ts, builtin:http_get', SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' },
  });
}, 120_000);
afterAll(async () => {
  await f?.close();
  page?.close();
});

const platformTool = (name: string, inputSchema: Record<string, unknown>) => ({
  name,
  description: name,
  owner: 'platform',
  approval: 'never',
  inputSchema,
  outputSchema: { type: 'object', properties: {}, additionalProperties: true },
});

describe('platform tools registered by setting', () => {
  it('a run calls an operator module and the built-in http_get', async () => {
    const agent = await f.call('POST', '/agents', {
      name: `Tools ${randomUUID().slice(0, 6)}`,
      initialConfig: {
        systemPrompt: 'Use tools.',
        modelPreset: 'fast',
        limits: { maxTurns: 6 },
        tools: [
          platformTool('word_count', { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
          platformTool('http_get', { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] }),
        ],
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'word_count', arguments: { text: 'one two three four' } },
          { name: 'http_get', arguments: { url: pageUrl } },
        ],
      })
      .reply({ text: 'Four words; the page is release notes.' });
    const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Count and fetch.' });
    const runId = session.body.latestRunId as string;
    expect((await f.waitForRun(runId)).state).toBe('completed');
    const calls = (await f.call('GET', `/tool-calls?runId=${runId}`)).body.data as Array<{ toolName: string; status: string; safeResult: { value: unknown } }>;
    const byName = Object.fromEntries(calls.map((call) => [call.toolName, call]));
    expect(byName.word_count).toMatchObject({ status: 'succeeded', safeResult: { value: { words: 4, runId } } });
    expect(byName.http_get).toMatchObject({
      status: 'succeeded',
      safeResult: { value: { status: 200, contentType: 'text/html', text: '<h1>Release notes</h1>', truncated: false } },
    });
  }, 60_000);

  it('npm run worker refuses to start with a broken module, naming each problem', async (context) => {
    if (!f.t.database.url) context.skip();
    const started = startWorkerProcess({
      databaseUrl: f.t.database.url!,
      taskQueue: `modules-${randomUUID()}`,
      dataDir: f.t.deps.settings.dataDir,
      env: { SVC_PLATFORM_TOOL_MODULES: 'test/fixtures/platform-tools/broken.ts' },
    });
    const failure = await started.then(
      (child) => {
        child.kill('SIGKILL');
        return null;
      },
      (error: Error) => error.message,
    );
    expect(failure).toContain('problem(s) with its platform tools');
    expect(failure).toContain('"no_handler"): handler must be an async function');
    expect(failure).toContain('"load_skill" is a name the platform\'s own tools use');
  }, 90_000);
});
