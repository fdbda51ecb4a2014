import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createClient, runToolCall } from '../../client/src/index.ts';
import { startMcpFixtureServer, type McpFixtureServer } from '../fixtures/mcp/server.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { newSigningSecret, startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { freePort, serveApp, type ServedApp } from '../support/http-server.ts';
import { auditAccessibility, type AccessibilityViolation } from '../support/accessibility-audit.ts';
import { createTestApp } from '../support/app.ts';
import { startRunApp } from '../support/run-app.ts';
import { ORDER, tool } from '../support/tool-call-app.ts';

/**
 * The console in a real browser (Debian's Chromium through playwright-core) against the whole
 * service — API, worker, Temporal, the fake vendors — started as `npm start` would, with the
 * console's origin as the allowed one. Each test leaves a screenshot of its last screen in
 * test/e2e/.screenshots/ (git-ignored) for a reviewer.
 */
const SCREENSHOTS = path.resolve('test/e2e/.screenshots');
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let origin: string;
let browser: Browser;
let page: Page;
let projectId: string;
let mcp: McpFixtureServer;
let receiver: WebhookReceiver;
let backupFile: string;

const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
const form = (name: string) => page.getByRole('form', { name });
const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  // A fresh installation: the browser creates the provider, the preset and the agents.
  f = await startRunApp({
    seed: false,
    env: { SVC_APP_ORIGIN: origin, SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0', SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' },
  });
  mcp = await startMcpFixtureServer();
  receiver = await startWebhookReceiver();
  projectId = f.projectId;
  served = await serveApp(f.t.app.fetch, { port });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1360, height: 900 } });
  page = await context.newPage();
  // A step that cannot happen fails with Playwright's own account of why, inside the test's timeout
  // (a screen that waits on the API polls up to vitest.config.ts's 30 s).
  page.setDefaultTimeout(20_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await f?.close();
  await mcp?.close();
  await receiver?.close();
});

describe('the console', () => {
  it('signs in (development mode) and shows who is signed in, where', async () => {
    await page.goto(origin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Overview' }).isVisible()).toBe(true);
    const facts = await page.locator('dl.facts').innerText();
    expect(facts).toContain('Signed in as');
    expect(facts).toContain('development');
    expect(await page.getByLabel('Project', { exact: true }).inputValue()).toBe(projectId);
    await shot('01-overview');
  });

  it('creates a model provider and a preset; the key never comes back', async () => {
    await nav('Models & connections').click();
    const provider = form('Add a model provider');
    await provider.getByLabel('Name', { exact: true }).fill('OpenAI');
    await provider.getByLabel(/^Key/).fill('openai');
    await provider.getByLabel('Type').selectOption('vendor_a');
    await provider.getByLabel('API key').fill(FAKE_KEYS.vendor_a);
    await provider.getByRole('button', { name: 'Add provider' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'OpenAI' }).count()).toBeGreaterThan(0);
    expect(await page.content()).not.toContain(FAKE_KEYS.vendor_a);
    // The vendor's live catalog, fetched with the stored key.
    await page.getByText('Model catalog').click();
    await expect.poll(() => page.getByRole('cell', { name: /^vendor_a\// }).count()).toBeGreaterThan(0);

    const preset = form('Create a preset');
    await preset.getByLabel('Name', { exact: true }).fill('Fast');
    await preset.getByLabel(/^Key/).fill('fast');
    await preset.getByLabel(/^Model/).fill('vendor_a/gpt-5.1');
    await preset.getByRole('button', { name: 'Create preset' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'vendor_a/gpt-5.1' }).count()).toBe(1);

    // The key replaced (the fingerprint and credential version move; the key still never shows), a spare preset archived.
    const replace = form("Replace a provider's API key");
    await replace.getByLabel('New API key').fill(FAKE_KEYS.vendor_a);
    await replace.getByRole('button', { name: 'Replace key' }).click();
    await expect
      .poll(() =>
        page
          .getByRole('row', { name: /OpenAI/ })
          .first()
          .innerText(),
      )
      .toMatch(/\s2\s*Remove$/);
    expect(await page.content()).not.toContain(FAKE_KEYS.vendor_a);
    await preset.getByLabel('Name', { exact: true }).fill('Spare');
    await preset.getByLabel(/^Key/).fill('spare');
    await preset.getByLabel(/^Model/).fill('vendor_a/gpt-5.1');
    await preset.getByRole('button', { name: 'Create preset' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'spare', exact: true }).count()).toBe(1);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('row', { name: /Spare/ }).getByRole('button', { name: 'Archive' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'spare', exact: true }).count()).toBe(0);
    expect((await f.call('GET', '/model-presets')).body.data.map((p: { key: string }) => p.key)).not.toContain('spare');
    await shot('02-connections');
  });

  it("refuses what the console's rules refuse, at the field, before anything is sent", async () => {
    await nav('Agents').click();
    await expect.poll(() => page.getByText('No agents yet').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New agent' }).click();
    const agent = form('New agent');
    await agent.getByLabel('Name', { exact: true }).fill('Refunds desk');
    const problem = () => agent.getByRole('alert').innerText();
    const create = () => agent.getByRole('button', { name: 'Create agent' }).click();

    await agent.getByLabel('System prompt').fill('You help customers.'); // 19 characters
    await create();
    expect(await problem()).toContain('initialConfig.systemPrompt must be at least 20 characters');
    expect(await agent.getByLabel('System prompt').getAttribute('aria-invalid')).toBe('true');

    await agent.getByLabel('System prompt').fill('You help customers with refunds, politely.');
    for (const maxTurns of ['31', '257']) {
      await agent.getByLabel('Max turns').fill(maxTurns);
      await create();
      expect(await problem()).toContain('initialConfig.limits.maxTurns must be 32 in the console');
    }
    await agent.getByLabel('Max turns').fill('32');
    for (const timeoutMs of ['999', '3600001']) {
      await agent.getByLabel('Timeout (ms)').fill(timeoutMs);
      await create();
      expect(await problem()).toContain('initialConfig.limits.timeoutMs must be an integer from 1,000 to 3,600,000');
    }
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('03-console-rules');
    // Nothing reached the service.
    expect((await f.call('GET', '/agents')).body.data).toEqual([]);
  });

  it('creates an agent, publishes a second version and shows the two side by side', async () => {
    const agent = form('New agent');
    await agent.getByLabel('Timeout (ms)').fill('60000');
    await agent.getByLabel(/Other settings/).fill(JSON.stringify({ tools: [tool('refund_order', 'caller', 'always', 'Refunds an order.')] }, null, 2));
    await agent.getByRole('button', { name: 'Create agent' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Refunds desk' }).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Publish a new version' }).click();
    const version = form('New version');
    await version.getByLabel('System prompt').fill('You help customers with refunds, politely and briefly.');
    await version.getByRole('button', { name: 'Publish v2' }).click();
    const diff = page.getByRole('table', { name: 'Side-by-side diff' });
    await expect.poll(() => diff.isVisible()).toBe(true);
    const changed = await diff.locator('tr.changed').innerText();
    expect(changed).toContain('"systemPrompt": "You help customers with refunds, politely."');
    expect(changed).toContain('"systemPrompt": "You help customers with refunds, politely and briefly."');
    expect(await page.getByText('1 changed line').isVisible()).toBe(true);
    await shot('04-agent-diff');
  });

  it('starts a session and watches it complete live, through a dropped connection', async () => {
    f.fakes.vendor_a.reply({ text: 'Your refund is on its way.', delayMs: 1_500 });
    await page.getByRole('link', { name: 'Start a session' }).click();
    const start = form('New session');
    await start.getByLabel('Message').fill('Where is my refund?');
    await start.getByRole('button', { name: 'Start session' }).click();
    await expect.poll(() => page.getByText('Live', { exact: true }).isVisible()).toBe(true);
    // The event feed is cut mid-run; the page resumes it (Last-Event-ID) and still sees the end.
    served.cutConnections();
    await expect.poll(() => page.locator('.heading .badge').innerText(), { timeout: 30_000 }).toBe('completed');
    expect(await page.locator('ol.transcript').innerText()).toContain('Your refund is on its way.');
    expect((await page.getByRole('table', { name: 'Timeline' }).innerText()).toLowerCase()).toContain('model call');
    await shot('05-session-live');
  });

  it('shows the reply growing as the model writes it, then the committed message once', async () => {
    const answer =
      'Your refund of 12.50 was issued this morning. It reaches your card within three to five working days; your bank may show it as pending first. Nothing else is needed from you.';
    // Slow enough (45 chunks, 11 s) that the checks of the reply being written run while it is.
    f.fakes.vendor_a.reply({ text: answer, chunkSize: 4, chunkDelayMs: 250 });
    await page.getByRole('textbox', { name: 'Follow-up message' }).fill('When will the money arrive?');
    await page.getByRole('button', { name: 'Send' }).click();
    const writing = page.getByRole('region', { name: 'Reply being written' });
    const transcript = page.locator('ol.transcript');
    // Part of the reply, before the run completes: a prefix of the answer, shorter than the whole.
    let partial = '';
    await expect
      .poll(
        async () =>
          (partial =
            (await writing
              .locator('p')
              .textContent({ timeout: 1_000 })
              .catch(() => null)) ?? ''),
        { timeout: 20_000, interval: 50 },
      )
      .toMatch(/^.{8,}$/);
    expect(answer.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(answer.length);
    expect(await transcript.innerText()).not.toContain(answer);
    expect(await writing.innerText()).toMatch(/writing…/);
    await shot('05b-reply-being-written');
    // The reply being written passes the accessibility audit too (the stream runs for seconds more).
    expect(await auditAccessibility(page)).toEqual([]);
    // Then the committed message in the transcript, exactly once, and no live text left.
    await expect.poll(() => page.locator('.heading .badge').innerText(), { timeout: 30_000 }).toBe('completed');
    await expect.poll(() => writing.count()).toBe(0);
    expect((await transcript.innerText()).split(answer).length - 1).toBe(1);
    expect((await page.locator('main').innerText()).split(answer).length - 1).toBe(1);
    await shot('05c-reply-committed');
  });

  it('approves a gated tool from the session; the run finishes once the caller answers', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'refund_order', arguments: { orderId: ORDER } }] }).reply({ text: 'Refund issued.' });
    await page.getByRole('textbox', { name: 'Follow-up message' }).fill('Refund order A1, please.');
    await page.getByRole('button', { name: 'Send' }).click();
    const approval = page.getByRole('group', { name: 'Approval for refund_order' });
    await expect.poll(() => approval.isVisible(), { timeout: 30_000 }).toBe(true);
    await approval.getByLabel(/Note/).fill('Within the refund policy');
    await shot('06-approval');
    await approval.getByRole('button', { name: 'Approve' }).click();

    // The integration answers the caller tool through the API (the typed client's helper).
    const client = createClient({ baseUrl: origin, apiKey: f.apiKey, projectId });
    let toolCallId: string | undefined;
    await expect
      .poll(
        async () =>
          (toolCallId = (await client.call('get', '/v1/projects/{projectId}/pending-work', {})).toolCalls.find((call) => call.status === 'pending')?.id),
        { timeout: 20_000 },
      )
      .toBeTruthy();
    await runToolCall(client, toolCallId!, async () => ({ total: 12.5 }));
    await expect.poll(() => page.locator('ol.transcript').innerText(), { timeout: 30_000 }).toContain('Refund issued.');
    const sessionId = new URL(page.url()).pathname.split('/').at(-1)!;
    const [decided] = (await client.call('get', '/v1/projects/{projectId}/sessions/{sessionId}', { path: { sessionId } })).debug.approvals;
    expect(decided).toMatchObject({ toolName: 'refund_order', status: 'approved', note: 'Within the refund policy' });
    // The debug records say the same, with the model-progress events under the names spec 3 gives them.
    await page.getByText('Debug records').click();
    const debug = page.locator('details.debug');
    await expect.poll(() => debug.innerText()).toMatch(/refund_order\s+approved[\s\S]*— Within the refund policy/);
    expect(await debug.innerText()).toContain('Model call started');
    await shot('07-approved');
  });

  it('queues a message behind a busy run and withdraws another; the queued one runs next', async () => {
    const refunds = (await f.call('GET', '/agents')).body.data.find((agent: { name: string }) => agent.name === 'Refunds desk');
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'refund_order', arguments: { orderId: ORDER } }] });
    const session = await f.call('POST', '/sessions', { agentId: refunds.id, title: 'Busy desk', initialMessage: 'Refund order A1, please.' });
    expect(session.status).toBe(201);
    await page.goto(`${origin}/sessions/${session.body.id}`);
    const approval = page.getByRole('group', { name: 'Approval for refund_order' });
    await expect.poll(() => approval.isVisible(), { timeout: 30_000 }).toBe(true);

    // Busy: the message box offers Queue and Interrupt instead of Send.
    const followUp = form('Follow-up message');
    expect(await followUp.getByRole('button', { name: 'Send' }).count()).toBe(0);
    const queue = async (message: string) => {
      await followUp.getByRole('textbox', { name: 'Follow-up message' }).fill(message);
      await followUp.getByRole('button', { name: 'Queue' }).click();
      await expect.poll(() => page.locator('tr.pending-turn').filter({ hasText: message }).count()).toBe(1);
    };
    await queue('Also check order B2.');
    expect(await followUp.getByRole('status').innerText()).toContain('Queued at position 1');
    await queue('And order C3.');
    // Under the active run, in order, each with Withdraw.
    const pending = page.locator('tr.pending-turn');
    expect(await pending.allInnerTexts()).toEqual([
      expect.stringMatching(/^waiting #1\s+pending\s+queued\s+Also check order B2\./),
      expect.stringMatching(/^waiting #2\s+pending\s+queued\s+And order C3\./),
    ]);
    const rows = await page.getByRole('table', { name: 'Runs' }).locator('tbody tr').allInnerTexts();
    expect(rows[0]).toContain('Refund order A1, please.');
    expect(rows.slice(1)).toEqual(await pending.allInnerTexts());
    // Read with the run waiting on its approval: the waiting badges keep their contrast too.
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('07b-queued');
    page.once('dialog', (dialog) => void dialog.accept());
    await pending.filter({ hasText: 'And order C3.' }).getByRole('button', { name: 'Withdraw' }).click();
    await expect.poll(() => pending.count()).toBe(1);
    expect(await pending.innerText()).toMatch(/^waiting #1/);

    // The run settles: the queued message becomes the next run.
    f.fakes.vendor_a.reply({ text: 'Refund issued.' }).reply({ text: 'B2 ships on Monday.' });
    await approval.getByRole('button', { name: 'Approve' }).click();
    const client = createClient({ baseUrl: origin, apiKey: f.apiKey, projectId });
    const runId = session.body.run.id;
    let toolCallId: string | undefined;
    await expect
      .poll(
        async () =>
          (toolCallId = (await client.call('get', '/v1/projects/{projectId}/pending-work', {})).toolCalls.find(
            (call) => call.runId === runId && call.status === 'pending',
          )?.id),
        { timeout: 20_000 },
      )
      .toBeTruthy();
    await runToolCall(client, toolCallId!, async () => ({ total: 12.5 }));
    await expect.poll(() => page.locator('ol.transcript').innerText(), { timeout: 30_000 }).toContain('B2 ships on Monday.');
    await expect.poll(() => page.locator('.heading .badge').innerText(), { timeout: 30_000 }).toBe('completed');
    expect(await pending.count()).toBe(0);
    expect(await followUp.getByRole('status').count()).toBe(0); // no longer "queued"
    const detail = (await f.call('GET', `/sessions/${session.body.id}`)).body;
    expect(detail.runs.map((run: { state: string; inputPublic: { message: string } }) => [run.state, run.inputPublic.message])).toEqual([
      ['completed', 'Refund order A1, please.'],
      ['completed', 'Also check order B2.'],
    ]);
    expect(detail.pendingTurns).toEqual([]);
    expect(await page.locator('ol.transcript').innerText()).not.toContain('And order C3.');
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('07c-queued-ran');
  }, 90_000);

  it('interrupts a busy run: it is cancelled, the queued message is dropped, and the new one runs', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'refund_order', arguments: { orderId: ORDER } }] });
    const followUp = form('Follow-up message');
    await followUp.getByRole('textbox', { name: 'Follow-up message' }).fill('Refund order A1 again.');
    await followUp.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('group', { name: 'Approval for refund_order' }).isVisible(), { timeout: 30_000 }).toBe(true);
    await followUp.getByRole('textbox', { name: 'Follow-up message' }).fill('Something else entirely.');
    await followUp.getByRole('button', { name: 'Queue' }).click();
    await expect.poll(() => page.locator('tr.pending-turn').count()).toBe(1);

    f.fakes.vendor_a.reply({ text: 'Hello again.' });
    await followUp.getByRole('textbox', { name: 'Follow-up message' }).fill('Never mind; just say hello.');
    page.once('dialog', (dialog) => void dialog.accept());
    await followUp.getByRole('button', { name: 'Interrupt' }).click();
    await expect.poll(() => page.locator('ol.transcript').innerText(), { timeout: 30_000 }).toContain('Hello again.');
    await expect.poll(() => page.locator('.heading .badge').innerText(), { timeout: 30_000 }).toBe('completed');
    const sessionId = new URL(page.url()).pathname.split('/').at(-1)!;
    const detail = (await f.call('GET', `/sessions/${sessionId}`)).body;
    expect(detail.runs.slice(2).map((run: { state: string; inputPublic: { message: string } }) => [run.state, run.inputPublic.message])).toEqual([
      ['cancelled', 'Refund order A1 again.'],
      ['completed', 'Never mind; just say hello.'],
    ]);
    // The interrupted run's approval closed with it.
    await expect.poll(async () => (await f.call('GET', `/sessions/${sessionId}`)).body.pendingWork.approvals).toEqual([]);
    expect(detail.pendingTurns).toEqual([]);
    expect(await page.locator('ol.transcript').innerText()).not.toContain('Something else entirely.');
    expect(await page.getByRole('table', { name: 'Runs' }).innerText()).toMatch(
      /cancelled\s+Refund order A1 again\.[\s\S]*completed\s+Never mind; just say hello\./,
    );
    await shot('07d-interrupted');
  }, 90_000);

  it('forks a settled run onto another version: the fork opens idle, with the transcript through that run', async () => {
    const sourceId = new URL(page.url()).pathname.split('/').at(-1)!;
    const source = (await f.call('GET', `/sessions/${sourceId}`)).body;
    const fromRun = source.runs[1];
    const v1 = (await f.call('GET', `/agents/${source.agentId}/versions`)).body.data.find((version: { version: number }) => version.version === 1);
    await page
      .getByRole('table', { name: 'Runs' })
      .getByRole('row', { name: /Also check order B2/ })
      .getByRole('button', { name: 'Fork' })
      .click();
    const fork = form(`Fork from run ${fromRun.id.slice(0, 8)}`);
    await fork.getByLabel('Agent version').selectOption({ label: 'Refunds desk v1' });
    await fork.getByLabel(/^Title/).fill('B2 on v1');
    expect(await auditAccessibility(page)).toEqual([]);
    await fork.getByRole('button', { name: 'Create fork' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'B2 on v1' }).isVisible(), { timeout: 15_000 }).toBe(true);
    const forkId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect(forkId).not.toBe(sourceId);
    expect(await page.locator('.heading .badge').innerText()).toBe('idle');
    expect(await page.locator('dl.facts').innerText()).toMatch(new RegExp(`Forked from\\s+session ${sourceId.slice(0, 8)} at run ${fromRun.id.slice(0, 8)}`));
    expect(await page.getByText('No runs yet.').isVisible()).toBe(true);
    const transcript = await page.locator('ol.transcript').innerText();
    expect(transcript).toMatch(/Refund order A1, please\.[\s\S]*Refund issued\.[\s\S]*Also check order B2\.[\s\S]*B2 ships on Monday\./);
    expect(transcript).not.toContain('Refund order A1 again.');
    expect(transcript).not.toContain('Hello again.');
    await shot('07e-fork-idle');

    // Its first message runs on the version picked.
    f.fakes.vendor_a.reply({ text: 'B2 is still due on Monday.' });
    await page.getByRole('textbox', { name: 'First message' }).fill('Is B2 still on time?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.heading .badge').innerText(), { timeout: 30_000 }).toBe('completed');
    await expect.poll(() => page.locator('ol.transcript').innerText()).toContain('B2 is still due on Monday.');
    const request = JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body);
    expect(request).toContain('You help customers with refunds, politely.');
    expect(request).not.toContain('politely and briefly');
    const forked = (await f.call('GET', `/sessions/${forkId}`)).body;
    expect(forked).toMatchObject({ agentVersionId: v1.id, forkedFrom: { sessionId: sourceId, runId: fromRun.id } });
    // The source is only read.
    expect((await f.call('GET', `/sessions/${sourceId}`)).body.runs).toHaveLength(source.runs.length);
    await page.getByRole('link', { name: `session ${sourceId.slice(0, 8)}` }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Busy desk' }).isVisible()).toBe(true);
    await shot('07f-fork-ran');
  }, 90_000);

  it('starts a session without a first message: it shows as idle until one is sent', async () => {
    await nav('Sessions').click();
    const start = form('New session');
    await start.getByLabel('Agent').selectOption({ label: 'Refunds desk (v2)' });
    await start.getByLabel(/^Title/).fill('Opened before typing');
    await start.getByRole('button', { name: 'Start session' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Opened before typing' }).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.locator('.heading .badge').innerText()).toBe('idle');
    expect(await page.getByText('No runs yet.').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    const sessionId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect((await f.call('GET', `/sessions/${sessionId}`)).body).toMatchObject({ status: 'idle', latestRunId: null, runs: [] });
    await nav('Sessions').click();
    await expect.poll(() => page.getByRole('row', { name: /Opened before typing/ }).innerText()).toMatch(/Opened before typing\s+idle/);
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('07g-idle-session');
  });

  it('downloads a file the agent wrote in its sandbox', async () => {
    const s3 = inject('s3');
    const bucket = `svc-console-${crypto.randomUUID().slice(0, 8)}`;
    const s3Client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    await s3Client.send(new CreateBucketCommand({ Bucket: bucket }));
    s3Client.destroy();
    // The storage and sandbox connections, made in the console.
    await nav('Models & connections').click();
    const storage = form('Add an S3 connection');
    await storage.getByLabel('Name', { exact: true }).fill('Files');
    await storage.getByLabel('Key', { exact: true }).fill('files');
    await storage.getByLabel(/^Endpoint/).fill(s3.endpoint);
    await storage.getByLabel('Region').fill(s3.region);
    await storage.getByLabel('Bucket').fill(bucket);
    await storage.getByLabel('Path-style addressing').check();
    await storage.getByLabel('Access key id').fill(s3.accessKeyId);
    await storage.getByLabel('Secret access key').fill(s3.secretAccessKey);
    await storage.getByRole('button', { name: 'Add storage' }).click();
    await expect.poll(() => page.getByRole('cell', { name: bucket }).isVisible()).toBe(true);
    const sandbox = form('Add a sandbox connection');
    await sandbox.getByLabel('Name', { exact: true }).fill('Local');
    await sandbox.getByLabel('Key', { exact: true }).fill('local');
    await sandbox.getByLabel('API key').fill('local');
    await sandbox.getByRole('button', { name: 'Add connection' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'Local', exact: true }).isVisible()).toBe(true);
    expect(await page.content()).not.toContain(s3.secretAccessKey);
    const [provider] = (await f.call('GET', '/sandbox-providers')).body.data;
    const snapshotId = (await f.call('GET', `/sandbox-providers/${provider.id}/snapshots`)).body.data[0].id;
    const agent = await f.call('POST', '/agents', {
      name: 'Note taker',
      initialConfig: {
        systemPrompt: 'You take notes in the workspace.',
        modelPreset: 'fast',
        limits: { maxTurns: 32 },
        sandbox: { enabled: true, provider: 'local', snapshotId, network: 'none', capabilities: ['filesystem_read', 'filesystem_write'] },
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'write', arguments: { path: 'notes/summary.md', content: '# Summary\nAll refunds issued.\n' } }] })
      .reply({ text: 'Notes written.' });
    const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Write the summary.' });
    await f.waitForRun(session.body.latestRunId, undefined, 90_000);

    await page.goto(`${origin}/sessions/${session.body.id}`);
    const link = page.getByRole('link', { name: 'notes/summary.md' });
    await expect.poll(() => link.isVisible(), { timeout: 20_000 }).toBe(true);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(readFileSync(await download.path(), 'utf8')).toBe('# Summary\nAll refunds issued.\n');
    await page.getByText('Debug records').click();
    const debug = await page.locator('details.debug').innerText();
    expect(debug).toMatch(/Sandboxes\s+\S+ snapshot \S+, network none/);
    expect(debug).toMatch(/Workspace backups\s+generation 1: 1 file,/);
    expect(debug).toContain('notes/summary.md');
    await shot('08-workspace-files');
  });

  it("shows a coordinator's delegation, opens the child session, and cancels the delegation", async () => {
    const helper = await f.call('POST', '/agents', {
      name: 'Capital finder',
      initialConfig: { systemPrompt: 'You find capitals of countries.', modelPreset: 'fast', limits: { maxTurns: 32 } },
    });
    const coordinator = await f.call('POST', '/agents', {
      name: 'Coordinator',
      initialConfig: {
        systemPrompt: 'You coordinate helpers for questions.',
        modelPreset: 'fast',
        limits: { maxTurns: 32 },
        delegates: [{ key: 'finder', description: 'Finds capitals.', agentVersionId: helper.body.latestVersionId, maxParallel: 1 }],
      },
    });
    expect(coordinator.status, JSON.stringify(coordinator.body)).toBe(201);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'finder', message: 'The capital of Norway?' } }] })
      .reply({ text: 'Oslo.' })
      .reply({ text: 'Norway: Oslo.' });
    const session = await f.call('POST', '/sessions', { agentId: coordinator.body.id, initialMessage: 'Capitals, please.' });
    expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');

    await page.goto(`${origin}/sessions/${session.body.id}`);
    const row = page.getByRole('table', { name: 'Delegations' }).getByRole('row', { name: /finder/ });
    await expect.poll(() => row.innerText()).toMatch(/finder\s+open\s+completed/);
    // A message straight to the delegate: the child session runs it.
    f.fakes.vendor_a.reply({ text: 'Stockholm.' });
    const message = form('Message a delegate');
    await message.getByLabel('Message to the delegate').fill('And of Sweden?');
    await message.getByRole('button', { name: 'Send to the delegate' }).click();
    await expect.poll(() => message.getByRole('status').isVisible()).toBe(true);
    const childSessionId = (await f.call('GET', `/sessions/${session.body.id}`)).body.delegations[0].childSessionId;
    await expect.poll(async () => (await f.call('GET', `/sessions/${childSessionId}`)).body.status, { timeout: 20_000 }).toBe('completed');
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Cancel delegation' }).click();
    await expect.poll(() => row.innerText()).toMatch(/finder\s+closed/);
    expect(await row.getByRole('button').count()).toBe(0);
    await row.getByRole('link', { name: 'finder' }).click();
    await expect.poll(() => page.locator('ol.transcript').innerText()).toContain('Stockholm.');
    expect(await page.locator('ol.transcript').innerText()).toMatch(/The capital of Norway\?[\s\S]*Oslo\.[\s\S]*And of Sweden\?[\s\S]*Stockholm\./);
    await shot('08b-delegation');
  });

  it("shows a fan-out's children side by side in the timeline", async () => {
    const helper = await f.call('POST', '/agents', {
      name: 'Part writer',
      initialConfig: { systemPrompt: 'You write one part.', modelPreset: 'fast', limits: { maxTurns: 32 } },
    });
    const lead = await f.call('POST', '/agents', {
      name: 'Fan-out lead',
      initialConfig: {
        systemPrompt: 'You split work into parts.',
        modelPreset: 'fast',
        limits: { maxTurns: 32 },
        delegates: [{ key: 'writer', description: 'Writes a part.', agentVersionId: helper.body.latestVersionId, maxParallel: 2 }],
      },
    });
    expect(lead.status, JSON.stringify(lead.body)).toBe(201);
    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'delegate_agent', arguments: { delegateKey: 'writer', message: 'Part one.' } },
          { name: 'delegate_agent', arguments: { delegateKey: 'writer', message: 'Part two.' } },
        ],
      })
      .reply({ text: 'One written.', delayMs: 800 })
      .reply({ text: 'Two written.', delayMs: 800 })
      .reply({ text: 'Both parts written.' });
    const session = await f.call('POST', '/sessions', { agentId: lead.body.id, initialMessage: 'Write both parts.' });
    expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');

    await page.goto(`${origin}/sessions/${session.body.id}`);
    const timeline = page.getByRole('table', { name: 'Timeline' });
    const children = timeline.getByRole('row').filter({ hasText: /delegation/i });
    await expect.poll(() => children.count()).toBe(2);
    expect((await children.allInnerTexts()).every((text) => /writer [0-9a-f]{8}\s+completed/i.test(text))).toBe(true);
    // Side by side: the two bars cover a common stretch of the time axis.
    const spans = await children.locator('.bar').evaluateAll((bars) =>
      bars.map((bar) => {
        const { left, width } = (bar as unknown as { style: { left: string; width: string } }).style;
        return [parseFloat(left), parseFloat(left) + parseFloat(width)];
      }),
    );
    expect(Math.max(spans[0]![0]!, spans[1]![0]!)).toBeLessThan(Math.min(spans[0]![1]!, spans[1]![1]!));
    await shot('08c-fan-out');
  });

  it('writes a Skill in a draft — instructions with a live preview, a folder and a file — and publishes it', async () => {
    await nav('Skills').click();
    await expect.poll(() => page.getByText('No Skills yet').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New blank draft' }).click();
    const editor = page.getByRole('region', { name: 'Draft editor' });
    await expect.poll(() => editor.isVisible()).toBe(true);
    await editor.getByLabel(/^Name/).fill('refund-policy');
    await editor.getByLabel('Description').fill('How refunds are decided and issued.');
    await editor
      .getByLabel('Instructions (Markdown)')
      .fill('# Refunds\n\nRefund **within 30 days**; check `orderId` first.\n\n- Look up the order\n- Refund it');
    const preview = editor.getByRole('region', { name: 'Preview' });
    expect(await preview.getByRole('heading', { name: 'Refunds' }).isVisible()).toBe(true);
    expect(await preview.locator('strong').innerText()).toBe('within 30 days');
    expect(await preview.getByRole('listitem').count()).toBe(2);
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => editor.getByRole('status').innerText()).toBe('Saved');
    await editor.getByLabel('New folder').fill('references');
    await editor.getByRole('button', { name: 'Add folder' }).click();
    await expect.poll(() => editor.getByText('📁 references/').isVisible()).toBe(true);
    await editor.getByLabel('File path').fill('references/policy.md');
    await editor.getByLabel('File text (Markdown)').fill('# Policy\n\nThirty days.\n');
    await editor.getByRole('button', { name: 'Save file' }).click();
    await expect.poll(() => editor.getByText('📄 references/policy.md').isVisible()).toBe(true);
    await editor.getByRole('button', { name: 'Validate' }).click();
    await expect.poll(() => editor.getByText('Ready to publish.').isVisible()).toBe(true);
    expect(await auditAccessibility(page)).toEqual([]);
    await editor.getByLabel('Skill key').fill('refund-policy');
    await editor.getByLabel('Display name').fill('Refund policy');
    await editor.getByRole('button', { name: 'Publish' }).click();
    await expect.poll(() => page.getByRole('cell', { name: /Refund policy/ }).isVisible()).toBe(true);
    const skills = (await f.call('GET', '/skills')).body.data;
    expect(skills).toHaveLength(1);
    expect(skills[0].latestVersion.files.map((file: { path: string }) => file.path)).toEqual(['references/policy.md']);
    // Its lifecycle: deprecate the version, disable the Skill and enable it again, then revoke the version (confirmed).
    const row = page.getByRole('row', { name: /Refund policy/ });
    await row.getByRole('button', { name: 'Versions' }).click();
    const versions = page.getByRole('region', { name: 'Versions of Refund policy' });
    const v1 = versions.getByRole('row', { name: /v1 refund-policy/ });
    // Its exact content, exported as a file.
    const [exported] = await Promise.all([page.waitForEvent('download'), v1.getByRole('link', { name: 'Export' }).click()]);
    expect(exported.suggestedFilename()).toBe('refund-policy-v1.json');
    expect(readFileSync(await exported.path(), 'utf8')).toContain('Refund **within 30 days**');
    await v1.getByRole('button', { name: 'Deprecate' }).click();
    await expect.poll(() => row.innerText()).toContain('deprecated');
    await row.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => row.getByRole('button', { name: 'Enable' }).isVisible()).toBe(true);
    expect((await f.call('GET', '/skills')).body.data[0]).toMatchObject({ enabled: false, latestVersion: { status: 'deprecated' } });
    await row.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => row.getByRole('button', { name: 'Disable' }).isVisible()).toBe(true);
    page.once('dialog', (dialog) => void dialog.accept());
    await v1.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => v1.innerText()).toContain('revoked');
    expect(await v1.getByRole('button').count()).toBe(0);
    expect((await f.call('GET', '/skills')).body.data[0]).toMatchObject({ enabled: true, latestVersion: { status: 'revoked' } });
    // A Skill no agent should load any more is deleted.
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByText('No Skills yet').isVisible()).toBe(true);
    expect((await f.call('GET', '/skills')).body.data).toEqual([]);
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('09-skill-published');
  });

  it("shows the service's refusal with its request id, then starts a session with an attached file and cancels its run", async () => {
    f.fakes.vendor_a.reply({ text: 'Still thinking…', delayMs: 5_000 });
    await nav('Sessions').click();
    const start = form('New session');
    await start.getByLabel('Agent').selectOption({ label: 'Refunds desk (v2)' });
    await start.getByLabel('Message').fill('Please read the attached order.');
    await start.getByLabel(/Attach files/).setInputFiles({ name: 'order.csv', mimeType: 'text/csv', buffer: Buffer.from('id,total\nA1,12.50\n') });
    await start.getByRole('button', { name: 'Start session' }).click();
    // An agent without a sandbox cannot take a text file: the envelope's message, its path and request id.
    const refusal = start.getByRole('alert');
    await expect.poll(() => refusal.isVisible()).toBe(true);
    expect(await refusal.innerText()).toMatch(/text files need a sandbox[\s\S]*at body\.files[\s\S]*bad_request · request [0-9a-f-]{36}/);
    await shot('10-refusal');

    await start.getByLabel('Agent').selectOption({ label: 'Note taker (v1)' });
    await start.getByRole('button', { name: 'Start session' }).click();
    try {
      await expect.poll(() => page.locator('ol.transcript').innerText(), { timeout: 15_000 }).toContain('attached order.csv');
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await expect.poll(() => page.locator('.heading .badge').innerText(), { timeout: 30_000 }).toBe('cancelled');
    } finally {
      await shot('11-cancelled');
    }
  }, 90_000);

  it('creates an API key and shows its secret exactly once', async () => {
    await nav('Members & API keys').click();
    const create = form('Create an API key');
    await create.getByLabel('Name', { exact: true }).fill('billing integration');
    await create.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('alert', { name: 'New API key secret' });
    await expect.poll(() => shown.isVisible()).toBe(true);
    const secret = await shown.locator('.secret-value').innerText();
    expect(secret).toMatch(/^svc_/);
    expect(await shown.getByRole('button', { name: 'Copy secret' }).isVisible()).toBe(true);
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('12-api-key-secret');
    // The key works; after a reload the secret is nowhere on the page.
    expect((await f.t.request('GET', '/v1/context', { apiKey: secret })).status).toBe(200);
    await page.reload();
    await expect.poll(() => page.getByRole('cell', { name: 'billing integration' }).isVisible()).toBe(true);
    expect(await page.content()).not.toContain(secret);
    // Revoking it (confirmed) ends it at once.
    page.once('dialog', (dialog) => void dialog.accept());
    await page
      .getByRole('row', { name: /billing integration/ })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await expect.poll(() => page.getByRole('row', { name: /billing integration/ }).innerText()).toContain('revoked');
    expect((await f.t.request('GET', '/v1/context', { apiKey: secret })).status).toBe(401);
  });

  it('downloads the configuration backup and previews its restore', async () => {
    await nav('Backup & restore').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download backup' }).click()]);
    const file = await download.path();
    backupFile = file;
    const backup = JSON.parse(readFileSync(file, 'utf8'));
    expect(backup.format).toBe('svc.organization-configuration');
    expect(readFileSync(file, 'utf8')).not.toContain(FAKE_KEYS.vendor_a);
    await page.getByLabel('Backup file').setInputFiles(file);
    const preview = form('Restore preview');
    await expect.poll(() => preview.isVisible(), { timeout: 10_000 }).toBe(true);
    const text = await preview.innerText();
    // Restoring into the organization it came from: its project is not empty, so it is blocked.
    expect(text).toMatch(/Default project\s+default\s+blocked/);
    expect(await preview.getByRole('button', { name: /Blocked/ }).isDisabled()).toBe(true);
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('13-restore-preview');
  });

  it('restores that backup into another installation, asking for each secret, and its agents are there', async () => {
    const port = await freePort();
    const otherOrigin = `http://127.0.0.1:${port}`;
    // Its storage connection points at the local S3 server: private networks, as in the source.
    const other = await createTestApp({ env: { SVC_APP_ORIGIN: otherOrigin, SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
    const otherServed = await serveApp(other.app.fetch, { port });
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    try {
      const otherPage = await context.newPage();
      otherPage.setDefaultTimeout(10_000);
      await otherPage.goto(otherOrigin);
      await otherPage.getByRole('button', { name: 'Sign in' }).click();
      await otherPage.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Backup & restore' }).click();
      await otherPage.getByLabel('Backup file').setInputFiles(backupFile);
      const preview = otherPage.getByRole('form', { name: 'Restore preview' });
      await expect.poll(() => preview.isVisible(), { timeout: 10_000 }).toBe(true);
      expect(await preview.innerText()).toMatch(/Default project\s+default\s+fill empty project/);
      const s3 = inject('s3');
      await preview.getByLabel(/^Secret for OpenAI/).fill(FAKE_KEYS.vendor_a);
      await preview.getByLabel(/^Secret for Files/).fill(JSON.stringify({ accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }));
      await preview.getByLabel(/^Secret for Local/).fill('local');
      await preview.getByRole('button', { name: 'Restore' }).click();
      await expect.poll(() => otherPage.getByRole('status').innerText(), { timeout: 15_000 }).toContain('Restored Default project (fill empty project)');
      await otherPage.screenshot({ path: path.join(SCREENSHOTS, '13b-restored.png'), fullPage: true });
      expect(await otherPage.content()).not.toContain(FAKE_KEYS.vendor_a);
      // The other installation now holds the agents, with both versions of the one published twice.
      const key = (await other.createApiKey(['*'])).secret;
      const agents = await (await other.request('GET', `/v1/projects/${(await other.login()).context.project.id}/agents`, { apiKey: key })).json();
      const refunds = agents.data.find((agent: { name: string }) => agent.name === 'Refunds desk');
      expect(refunds?.version).toBe(2);
    } finally {
      await context.close();
      await otherServed.close();
      await other.close();
    }
  }, 60_000);

  it('adds an MCP server and discovers its tools', async () => {
    await nav('MCP').click();
    const add = form('Add an MCP server');
    await add.getByLabel('Name', { exact: true }).fill('Orders MCP');
    await add.getByLabel('Key', { exact: true }).fill('orders');
    await add.getByLabel('Endpoint URL').fill(mcp.streamableUrl);
    await add.getByRole('button', { name: 'Add server' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Orders MCP orders' }).isVisible()).toBe(true);
    expect(await page.getByText('Not discovered yet.').isVisible()).toBe(true);
    await form('Discover Orders MCP').getByRole('button', { name: 'Discover tools' }).click();
    await expect.poll(() => page.getByText('Not discovered yet.').count(), { timeout: 15_000 }).toBe(0);
    const tools = (await f.call('GET', '/mcp-servers')).body.data[0].versions[0].tools.map((tool: { name: string }) => tool.name);
    expect(tools.length).toBeGreaterThan(0);
    for (const name of tools) expect(await page.getByRole('listitem').filter({ hasText: name }).count()).toBeGreaterThan(0);
    await shot('15-mcp-discovered');
  });

  it('adds an MCP credential, publishes its policy and a toolset; the secret never comes back', async () => {
    const secret = `mcp-bearer-${crypto.randomUUID()}`;
    const credential = form('Add a credential');
    await credential.getByLabel('Name', { exact: true }).fill('Orders token');
    await credential.getByLabel('Key', { exact: true }).fill('orders-token');
    await credential.getByLabel('Secret').fill(secret);
    await credential.getByRole('button', { name: 'Add credential' }).click();
    await expect.poll(() => page.getByRole('cell', { name: /Orders token/ }).isVisible()).toBe(true);
    expect(await page.getByRole('row', { name: /Orders token/ }).innerText()).toContain('static_bearer');

    const policy = form('Publish a credential policy');
    await policy.getByLabel('Name', { exact: true }).fill('Orders only');
    await policy.getByLabel('Key', { exact: true }).fill('orders-only');
    await policy.getByLabel('Credential', { exact: true }).selectOption({ label: 'Orders token' });
    await policy.getByLabel(/^Exact origin/).fill(mcp.url);
    await policy.getByRole('button', { name: 'Publish policy' }).click();
    await expect.poll(() => page.getByRole('listitem').filter({ hasText: 'Orders only' }).innerText()).toContain(`${mcp.url}/`);

    const toolset = form('Publish a toolset');
    await toolset.getByLabel('Name', { exact: true }).fill('Orders echo');
    await toolset.getByLabel('Key', { exact: true }).fill('orders-echo');
    await toolset.getByLabel('Tools').fill(JSON.stringify([{ remoteToolName: 'echo', approval: 'always' }]));
    await toolset.getByRole('button', { name: 'Publish toolset' }).click();
    await expect.poll(() => page.getByRole('listitem').filter({ hasText: 'orders-echo' }).innerText()).toContain('echo (approval)');

    // What the service holds is what the browser sent; the secret is in neither the page nor the answers.
    const [stored] = (await f.call('GET', '/mcp-toolsets')).body.data;
    expect(stored.versions[0].tools).toEqual([{ remoteToolName: 'echo', approval: 'always' }]);
    expect((await f.call('GET', '/mcp-credential-policies')).body.data[0]).toMatchObject({ key: 'orders-only', exactOrigin: mcp.url, pathPrefix: '/' });
    expect(await page.content()).not.toContain(secret);

    // The server now demands the token: discovery through the policy sends it; after a rotation, the new one.
    const discover = form('Discover Orders MCP');
    const discoverWith = async (token: string) => {
      mcp.requireHeader('authorization', `Bearer ${token}`);
      const before = mcp.requests.length;
      await discover.getByLabel('Credential policy').selectOption({ label: `Orders only v1 (${mcp.url})` });
      await discover.getByRole('button', { name: 'Discover tools' }).click();
      await expect.poll(() => discover.getByRole('status').isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await discover.getByRole('alert').count()).toBe(0);
      expect(mcp.requests.length).toBeGreaterThan(before);
      expect(mcp.requests.slice(before).every((request) => request.headers.authorization === `Bearer ${token}`)).toBe(true);
    };
    try {
      await discoverWith(secret);
      const rotated = `mcp-bearer-${crypto.randomUUID()}`;
      const rotate = form("Rotate a credential's secret");
      await rotate.getByLabel('New secret').fill(rotated);
      await rotate.getByRole('button', { name: 'Rotate' }).click();
      await expect.poll(() => page.getByRole('row', { name: /Orders token/ }).innerText()).toMatch(/static_bearer\s+\S+\s+2\s+active/);
      await discoverWith(rotated);
      expect(await page.content()).not.toContain(rotated);
    } finally {
      mcp.requireHeader('authorization', null);
    }
    page.once('dialog', (dialog) => void dialog.accept());
    await page
      .getByRole('row', { name: /Orders token/ })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await expect.poll(() => page.getByRole('row', { name: /Orders token/ }).innerText()).toContain('revoked');
    expect(await form("Rotate a credential's secret").count()).toBe(0);
    await shot('15b-mcp-credential-policy-toolset');
  });

  it('adds a webhook that receives the events, with its delivery status', async () => {
    await nav('Webhooks').click();
    await expect.poll(() => page.getByText('No webhooks.').isVisible()).toBe(true);
    const add = form('Add a webhook');
    await add.getByLabel('Name', { exact: true }).fill('Billing receiver');
    await add.getByLabel(/^Endpoint URL/).fill(receiver.url);
    await add.getByLabel(/^Signing secret/).fill(newSigningSecret());
    await add.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => page.getByRole('cell', { name: /Billing receiver/ }).isVisible()).toBe(true);
    // Events after its creation (deliverFrom now): a new session and its run; the webhook delivers them.
    const witness = await f.call('POST', '/agents', {
      name: 'Webhook witness',
      initialConfig: { systemPrompt: 'You witness webhook deliveries.', modelPreset: 'fast', limits: { maxTurns: 32 } },
    });
    expect(witness.status).toBe(201);
    f.fakes.vendor_a.reply({ text: 'Witnessed.' });
    expect((await f.call('POST', '/sessions', { agentId: witness.body.id, initialMessage: 'Hello.' })).status).toBe(201);
    await receiver.waitFor((requests) => requests.length > 0, 30_000);
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByRole('row', { name: /Billing receiver/ }).innerText();
        },
        { timeout: 30_000 },
      )
      .toMatch(/active\s+0\s+\d/);
    await shot('16-webhook-delivered');

    // The receiver starts failing: the next delivery's failure shows as the last error, with a retry time.
    receiver.setDefaultAnswer({ status: 500 });
    try {
      const delivered = receiver.requests.length;
      f.fakes.vendor_a.reply({ text: 'Witnessed again.' });
      expect((await f.call('POST', '/sessions', { agentId: witness.body.id, initialMessage: 'Hello again.' })).status).toBe(201);
      await receiver.waitFor((requests) => requests.slice(delivered).some((request) => request.answeredStatus === 500), 30_000);
      await expect
        .poll(
          async () => {
            await page.reload();
            return page.getByRole('row', { name: /Billing receiver/ }).innerText();
          },
          { timeout: 15_000 },
        )
        .toMatch(/HTTP 500/);
      expect(await page.getByRole('row', { name: /Billing receiver/ }).innerText()).toMatch(/\d+ failures?[\s\S]*retry/);
      await shot('16b-webhook-failing');
    } finally {
      receiver.setDefaultAnswer({ status: 204 });
    }

    // Its signing secret rotated (never shown again), then the webhook deleted.
    const rotated = newSigningSecret();
    const rotate = form('Rotate a signing secret');
    await rotate.getByLabel(/^New signing secret/).fill(rotated);
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    await expect.poll(() => rotate.getByRole('status').isVisible()).toBe(true);
    expect(await page.content()).not.toContain(rotated);
    page.once('dialog', (dialog) => void dialog.accept());
    await page
      .getByRole('row', { name: /Billing receiver/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect.poll(() => page.getByText('No webhooks.').isVisible()).toBe(true);
    expect((await f.call('GET', '/event-webhooks')).body.data).toEqual([]);
  });

  it('switches projects, adds a member, archives an agent, and works from the keyboard', async () => {
    // A project the signed-in person creates on the overview (so they are its member); the switcher offers it at once.
    await page.goto(origin);
    const project = form('Create a project');
    await project.getByLabel('Name', { exact: true }).fill('Research');
    await project.getByLabel(/^Slug/).fill('research');
    await project.getByRole('button', { name: 'Create project' }).click();
    await expect.poll(() => project.getByRole('status').isVisible()).toBe(true);
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Research' });
    await expect.poll(() => page.locator('dl.facts').innerText()).toContain('Research');
    await nav('Agents').click();
    await expect.poll(() => page.getByText('No agents yet').isVisible()).toBe(true);
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Default project' });
    await expect.poll(() => page.locator('dl.facts').innerText()).toContain('Default project');

    await nav('Members & API keys').click();
    const member = form('Add or update a member');
    await member.getByLabel(/^Subject/).fill('alice@example.com');
    await member.getByLabel('Role', { exact: true }).selectOption('member');
    await member.getByRole('button', { name: 'Save member' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'alice@example.com' }).isVisible()).toBe(true);
    await page.getByLabel('Role of alice@example.com').selectOption('viewer');
    await expect
      .poll(async () => (await f.call('GET', '/members')).body.data.find((m: { subject: string }) => m.subject === 'alice@example.com')?.role)
      .toBe('viewer');
    page.once('dialog', (dialog) => void dialog.accept());
    await page
      .getByRole('row', { name: /alice@example\.com/ })
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect.poll(() => page.getByRole('cell', { name: 'alice@example.com' }).count()).toBe(0);
    expect((await f.call('GET', '/members')).body.data.some((m: { subject: string }) => m.subject === 'alice@example.com')).toBe(false);

    await nav('Agents').click();
    await page.getByRole('link', { name: 'Webhook witness' }).click();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Archive' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Agents' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('link', { name: 'Webhook witness' }).count()).toBe(0);

    // Keyboard only: the first Tab reaches the skip link; Tab on to a navigation link, Enter follows it.
    await page.goto(origin);
    await expect.poll(() => nav('Overview').isVisible()).toBe(true);
    await page.keyboard.press('Tab');
    const focused = () =>
      page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent);
    expect(await focused()).toBe('Skip to content');
    for (let presses = 0; presses < 30 && (await focused()) !== 'Pending work'; presses++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { name: 'Pending work', level: 1 }).isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/pending');
    await shot('17-keyboard');
  });

  it("passes an automated accessibility audit (axe: WCAG 2.1 A and AA, and axe's best practices) on every screen", async () => {
    const agentId = (await f.call('GET', '/agents')).body.data[0].id;
    const sessionId = (await f.call('GET', '/sessions')).body.data[0].id;
    const found: Record<string, AccessibilityViolation[]> = {};
    for (const where of [
      '/',
      '/agents',
      `/agents/${agentId}`,
      '/sessions',
      `/sessions/${sessionId}`,
      '/schedules',
      '/usage',
      '/pending',
      '/connections',
      '/skills',
      '/mcp',
      '/webhooks',
      '/access',
      '/backup',
      '/no-such-page',
    ]) {
      await page.goto(`${origin}${where}`);
      // What is audited is the loaded screen; how fast it loads beside two other test files is not (10 s, not the poll's 1 s default).
      await expect.poll(() => page.locator('main h1').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      // Loaded: nothing still marked busy (the live pages keep their event feed open, so the network never idles).
      await expect.poll(() => page.locator('[aria-busy="true"]').count(), { timeout: 10_000 }).toBe(0);
      const violations = await auditAccessibility(page);
      if (violations.length > 0) found[where] = violations;
    }
    // The sign-in screen, as a browser without a session sees it.
    const signedOut = await browser.newPage();
    await signedOut.goto(origin);
    await expect.poll(() => signedOut.getByRole('button', { name: 'Sign in' }).isVisible(), { timeout: 10_000 }).toBe(true);
    const signIn = await auditAccessibility(signedOut);
    if (signIn.length > 0) found['sign-in'] = signIn;
    await signedOut.screenshot({ path: path.join(SCREENSHOTS, '18-accessibility-sign-in.png'), fullPage: true });
    await signedOut.close();
    expect(found).toEqual({});
  });

  it("refuses a cross-origin form post made with the person's cookies", async () => {
    const agentsBefore = (await f.call('GET', '/agents')).body.data.length;
    const attacker: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(
        `<!doctype html><form id="f" method="post" action="${origin}/v1/projects/${projectId}/agents"><input name="name" value="Planted"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const answer = page.waitForResponse((response) => response.url().endsWith(`/v1/projects/${projectId}/agents`) && response.request().method() === 'POST');
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      const response = await answer;
      expect(response.status()).toBe(403);
      expect((await response.json()).error.message).toBe('Request origin is not allowed');
    } finally {
      await new Promise<void>((resolve) => attacker.close(() => resolve()));
    }
    expect((await f.call('GET', '/agents')).body.data.length).toBe(agentsBefore);
    await shot('14-cross-origin-refused');
  });
});
