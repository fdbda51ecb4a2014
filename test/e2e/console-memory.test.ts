import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditAccessibility } from '../support/accessibility-audit.ts';
import { freePort, serveApp, type ServedApp } from '../support/http-server.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * The console's Memory screen in Chromium against the whole service (issue 48 item 7): the
 * project's stores with their counts, a store created from the screen; a store's memories as a
 * tree of folders, a memory's content and versions, the line diff between two versions, and a
 * version redacted after its confirmation (the current one refused with the service's message);
 * the session page lists the stores a session attached.
 */
const SCREENSHOTS = path.resolve('test/e2e/.screenshots');
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let origin: string;
let browser: Browser;
let page: Page;
let storeId: string;
let memoryId: string;
let sessionId: string;

const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
const ok = async (answer: Promise<{ status: number; body: any }>, status = 200) => {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
};
const memories = (suffix = '') => `/memory-stores/${storeId}/memories${suffix}`;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  f = await startRunApp({ env: { SVC_APP_ORIGIN: origin, SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' } });
  served = await serveApp(f.t.app.fetch, { port });

  // A store with three memories in two folders; one memory in two versions.
  storeId = (await ok(f.call('POST', '/memory-stores', { name: 'Customer notes', description: 'What we know about each customer.' }), 201)).id;
  const acme = await ok(f.call('POST', memories(), { path: '/customers/acme.md', content: 'Renews in March.\nContact: Bob.' }), 201);
  memoryId = acme.id;
  await ok(
    f.call('PATCH', memories(`/${memoryId}`), {
      content: 'Renews in March.\nContact: Dana.\nPrefers email.',
      precondition: { type: 'content_sha256', contentSha256: acme.contentSha256 },
    }),
  );
  await ok(f.call('POST', memories(), { path: '/customers/globex/contacts.md', content: 'Ask for Hank.' }), 201);
  await ok(f.call('POST', memories(), { path: '/readme.md', content: 'One file per customer.' }), 201);

  // A session attaching the store read-only (idle: no message, no run).
  const agent = await ok(
    f.call('POST', '/agents', {
      name: 'Account manager',
      initialConfig: { systemPrompt: 'You keep notes about our customers.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    }),
    201,
  );
  sessionId = (
    await ok(
      f.call('POST', '/sessions', {
        agentId: agent.id,
        title: 'Remembers customers',
        memoryStores: [{ storeId, access: 'read_only', instructions: 'Read before answering.' }],
      }),
      201,
    )
  ).id;

  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  page = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(origin);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await f?.close();
});

describe('memory in the console', () => {
  it('lists the stores with their counts and creates one', async () => {
    await nav('Memory').click();
    await expect.poll(() => page.getByRole('heading', { name: 'Memory', level: 1 }).isVisible()).toBe(true);
    const table = page.getByRole('table', { name: 'Memory stores' });
    await expect
      .poll(() => table.getByRole('row', { name: /Customer notes/ }).innerText())
      .toMatch(/Customer notes\s+What we know about each customer\.\s+3\s+\d+ bytes\s+4\s+active\s+/);

    const create = page.getByRole('form', { name: 'New memory store' });
    await create.getByLabel(/^Name/).fill('Scratch pad');
    await create.getByLabel(/^Description/).fill('Notes for later.');
    await create.getByRole('button', { name: 'Create store' }).click();
    await expect.poll(() => table.getByRole('row', { name: /Scratch pad/ }).innerText()).toMatch(/Scratch pad\s+Notes for later\.\s+0\s+0 bytes\s+0\s+active/);
    const created = (await ok(f.call('GET', '/memory-stores'))).data.find((store: { name: string }) => store.name === 'Scratch pad');
    expect(created).toMatchObject({ description: 'Notes for later.', memoryCount: 0 });
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('50-memory-stores');
  });

  it("shows a store's tree, a memory's versions and the diff between them, and redacts the older version", async () => {
    await page.getByRole('link', { name: 'Customer notes' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Customer notes', level: 1 }).isVisible()).toBe(true);
    expect(await page.locator('dl.facts').innerText()).toMatch(/Mount path\s+\/mnt\/memory\/customer-notes\/\s+Memories\s+3 · \d+ bytes\s+Versions\s+4/);

    // The tree: folders from the paths (with how many memories each holds), folders before memories.
    const tree = page.getByRole('navigation', { name: 'Memory paths' });
    await expect.poll(() => tree.getByRole('button').allInnerTexts()).toEqual(['contacts.md', 'acme.md', 'readme.md']);
    expect((await tree.innerText()).replace(/\s+/g, ' ')).toBe(
      'Memories 📁 customers/ (2) 📁 globex/ (1) 📄 contacts.md 13 bytes 📄 acme.md 46 bytes 📄 readme.md 22 bytes',
    );
    expect(await tree.locator('summary').allInnerTexts()).toEqual(['📁 customers/ (2)', '📁 globex/ (1)']);

    await tree.getByRole('button', { name: 'acme.md' }).click();
    const memory = page.getByRole('region', { name: 'Memory /customers/acme.md' });
    await expect.poll(() => memory.locator('pre.memory-content').innerText()).toBe('Renews in March.\nContact: Dana.\nPrefers email.');
    const versions = memory.getByRole('table', { name: 'Versions' });
    const rows = versions.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const listed = (await ok(f.call('GET', `/memory-stores/${storeId}/memory-versions?memoryId=${memoryId}`))).data;
    // Newest first, each with its operation, author, time, size and hash.
    expect(await rows.nth(0).innerText()).toMatch(
      new RegExp(
        `^#2 current\\s+modified\\s+principal ${listed[0].writtenBy.principalId.slice(0, 8)}[\\s\\S]*\\s+46 bytes\\s+${listed[0].contentSha256.slice(0, 12)}\\s+Redact$`,
      ),
    );
    expect(await rows.nth(1).innerText()).toMatch(
      new RegExp(`^#1\\s+created\\s+principal [\\s\\S]*\\s+30 bytes\\s+${listed[1].contentSha256.slice(0, 12)}\\s+Redact$`),
    );

    // The diff: from the older version to the newer, line by line.
    const compare = memory.getByRole('region', { name: 'Compare versions' });
    const diff = compare.getByRole('table', { name: 'Side-by-side diff' });
    await expect.poll(() => diff.locator('tr').count()).toBe(3);
    expect(await compare.getByText('2 changed lines').isVisible()).toBe(true);
    const cells = (row: number) =>
      diff
        .locator('tr')
        .nth(row)
        .locator('td')
        .allInnerTexts()
        .then((texts) => texts.map((text) => text.trim()));
    expect(await diff.locator('tr').evaluateAll((nodes) => nodes.map((node) => node.className))).toEqual(['same', 'changed', 'added']);
    expect(await cells(0)).toEqual(['1', 'Renews in March.', '1', 'Renews in March.']);
    expect(await cells(1)).toEqual(['2', 'Contact: Bob.', '2', 'Contact: Dana.']);
    expect(await cells(2)).toEqual(['', '', '3', 'Prefers email.']);
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('51-memory-diff');

    // The current version is the memory's content: the service refuses, and its message shows.
    page.once('dialog', (dialog) => void dialog.accept());
    await rows.nth(0).getByRole('button', { name: 'Redact' }).click();
    await expect.poll(() => memory.getByRole('alert').innerText()).toMatch(/This is the memory's current content: update or delete the memory first/);
    expect((await ok(f.call('GET', `/memory-stores/${storeId}/memory-versions/${listed[0].id}?view=full`))).redactedAt).toBeNull();

    // Dismissing the confirmation leaves the version as it was.
    let asked = '';
    page.once('dialog', (dialog) => ((asked = dialog.message()), void dialog.dismiss()));
    await rows.nth(1).getByRole('button', { name: 'Redact' }).click();
    await expect.poll(() => asked).toMatch(/^Redact version #1 of \/customers\/acme\.md\? Its content and path are erased for good/);
    expect((await ok(f.call('GET', `/memory-stores/${storeId}/memory-versions/${listed[1].id}?view=full`))).content).toBe('Renews in March.\nContact: Bob.');

    // Confirmed: the older version is redacted, its hash and size kept, its content gone.
    page.once('dialog', (dialog) => void dialog.accept());
    await rows.nth(1).getByRole('button', { name: 'Redact' }).click();
    await expect
      .poll(() => rows.nth(1).innerText())
      .toMatch(new RegExp(`^#1 redacted\\s+created\\s+content erased[\\s\\S]*\\s+30 bytes\\s+${listed[1].contentSha256.slice(0, 12)}\\s*$`));
    expect(await memory.getByRole('alert').count()).toBe(0);
    await expect.poll(() => compare.getByRole('status').innerText()).toBe('Version #1 is redacted: the content is gone, so there is nothing to compare.');
    expect(await compare.getByRole('table').count()).toBe(0);
    const redacted = await ok(f.call('GET', `/memory-stores/${storeId}/memory-versions/${listed[1].id}?view=full`));
    expect(redacted).toMatchObject({ content: null, path: null, contentSha256: listed[1].contentSha256, contentSizeBytes: 30 });
    expect(redacted.redactedAt).not.toBeNull();
    // The memory itself is untouched.
    expect(await memory.locator('pre.memory-content').innerText()).toBe('Renews in March.\nContact: Dana.\nPrefers email.');
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('52-memory-redacted');
  });

  it('lists the stores a session attached on its page', async () => {
    await page.goto(`${origin}/sessions/${sessionId}`);
    const attached = page.getByRole('table', { name: 'Attached memory stores' });
    await expect
      .poll(() => attached.getByRole('row', { name: /Customer notes/ }).innerText())
      .toMatch(/^Customer notes\s+What we know about each customer\.\s+read only\s+\/mnt\/memory\/customer-notes\/\s+Read before answering\.$/);
    expect(await attached.getByRole('link', { name: 'Customer notes' }).getAttribute('href')).toBe(`/memory/${storeId}`);
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('53-session-memory-stores');
  });
});
