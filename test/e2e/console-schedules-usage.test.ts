import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { eq } from 'drizzle-orm';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principals } from '../../db/schema/index.ts';
import { scopesForRole } from '../../domain/members.ts';
import { DEVELOPMENT_SUBJECT } from '../../domain/principals.ts';
import { auditAccessibility } from '../support/accessibility-audit.ts';
import { freePort, serveApp, type ServedApp } from '../support/http-server.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * The console's money and schedule screens in Chromium against the whole service (issue 35
 * part 5): cost and budgets on sessions and runs, the usage page (a bar per day, the totals, a
 * group-by switch, the project's monthly budget), and the Schedules screen (create, next
 * firings, run now, pause and unpause, delete), with the actions a narrower principal may not
 * take left out; and the session page's context meter (issue 47), a compaction marked on it.
 */
const SCREENSHOTS = path.resolve('test/e2e/.screenshots');
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let origin: string;
let browser: Browser;
let page: Page;
let agentId: string;

const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
const form = (name: string) => page.getByRole('form', { name });
const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
const ok = async (answer: Promise<{ status: number; body: any }>, status = 200) => {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
};
/** Today as the ledger counts days (UTC). */
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  f = await startRunApp({ env: { SVC_APP_ORIGIN: origin, SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' } });
  served = await serveApp(f.t.app.fetch, { port });
  // The seeded preset priced: 2 per million input tokens, 10 per million output tokens.
  const fast = (await ok(f.call('GET', '/model-presets'))).data.find((preset: { key: string }) => preset.key === 'fast');
  await ok(f.call('PATCH', `/model-presets/${fast.id}`, { prices: { input: 2, output: 10 } }));
  agentId = (
    await ok(
      f.call('POST', '/agents', {
        name: 'Ledger agent',
        initialConfig: { systemPrompt: 'You write short reports for the team.', modelPreset: 'fast', limits: { maxTurns: 4 } },
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

describe('cost, budgets and usage in the console', () => {
  it('shows tokens and cost on sessions and runs, and sets a session budget at the start and later', async () => {
    // 1,000 in × 2 + 200 out × 10 per million: 0.004 a run, in the installation's currency (the context's).
    for (const title of ['Morning report', 'Evening report']) {
      f.fakes.vendor_a.reply({ text: `${title} done.`, usage: { inputTokens: 1000, outputTokens: 200 } });
      const session = await ok(f.call('POST', '/sessions', { agentId, title, initialMessage: 'Write it.' }), 201);
      await f.waitForRun(session.run.id);
    }
    await nav('Sessions').click();
    await expect
      .poll(() => page.getByRole('row', { name: /Morning report/ }).innerText())
      .toMatch(/Morning report\s+completed\s+1,000 \/ 200\s+0 \/ 0\s+0\.004 USD\s/);

    await page.getByRole('link', { name: 'Morning report' }).click();
    const facts = page.locator('dl.facts');
    await expect.poll(() => facts.innerText()).toMatch(/Cost\s+0\.004 USD\s+Budget\s+none/);
    expect(await page.getByRole('table', { name: 'Runs' }).locator('tbody tr').first().innerText()).toMatch(/Write it\.\s+1,000 \/ 200\s+0\.004 USD\s/);
    await page.getByRole('button', { name: 'Change budget' }).click();
    const budget = form('Session budget');
    await budget.getByLabel(/^Max tokens/).fill('50000');
    await budget.getByRole('button', { name: 'Save budget' }).click();
    await expect.poll(() => facts.innerText()).toContain('at most 50,000 tokens');
    const sessionId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect((await ok(f.call('GET', `/sessions/${sessionId}`))).budget).toEqual({ maxCost: null, maxTokens: 50000 });

    // A new session with a budget from the start (idle: no message).
    await nav('Sessions').click();
    const start = form('New session');
    await start.getByLabel(/^Title/).fill('Budgeted');
    await start.getByLabel(/^Budget: max cost/).fill('0.5');
    await start.getByRole('button', { name: 'Start session' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Budgeted' }).isVisible()).toBe(true);
    await expect.poll(() => facts.innerText()).toMatch(/Budget\s+cost at most 0\.5 USD Change budget/);
    const budgeted = new URL(page.url()).pathname.split('/').at(-1)!;
    expect((await ok(f.call('GET', `/sessions/${budgeted}`))).budget).toEqual({ maxCost: 0.5, maxTokens: null });
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('40-session-cost-budget');
  });

  it('shows the usage ledger: a bar per day, the totals, groups by agent, and the monthly budget', async () => {
    const ledger = await ok(f.call('GET', '/usage'));
    await nav('Usage').click();
    await expect.poll(() => page.getByRole('heading', { name: 'Usage', level: 1 }).isVisible()).toBe(true);
    const totals = page.locator('dl.figures');
    await expect
      .poll(() => totals.innerText())
      .toMatch(new RegExp(`Cost\\s+0\\.008 ${ledger.currency}\\s+Runs\\s+2\\s+Model calls\\s+2\\s+Tokens in\\s+2,000\\s+Tokens out\\s+400`));
    // This month so far, every day a bar; today's holds both runs.
    const bars = page.locator('figure.chart rect.bar');
    expect(await bars.count()).toBe(ledger.groups.length);
    expect(ledger.groups.length).toBe(Number(today().slice(8)));
    const todays = page.locator(`figure.chart rect.bar[data-day="${today()}"]`);
    expect(Number(await todays.getAttribute('height'))).toBeGreaterThan(100);
    expect(await todays.locator('title').textContent()).toBe(`${today()}: 0.008 ${ledger.currency}, 2 runs`);
    expect(await page.getByRole('img', { name: new RegExp(`^Cost per day, .+: highest 0\\.008 ${ledger.currency} on ${today()}$`) }).count()).toBe(1);
    expect(
      await page
        .getByRole('table', { name: 'Usage by day' })
        .getByRole('row', { name: new RegExp(today()) })
        .innerText(),
    ).toMatch(/\s2\s+2\s+2,000\s+400\s+0\s+0\s+0\.008$/);

    await page.getByLabel('Chart').selectOption('tokens');
    await expect.poll(() => todays.locator('title').textContent()).toBe(`${today()}: 2,400 tokens, 2 runs`);
    await page.getByLabel('Group by').selectOption('agent');
    const byAgent = page.getByRole('table', { name: 'Usage by agent' });
    await expect.poll(() => byAgent.getByRole('row', { name: /Ledger agent/ }).innerText()).toMatch(/Ledger agent\s+2\s+2\s+2,000\s+400\s+0\s+0\s+0\.008/);
    expect(await byAgent.locator('tfoot').innerText()).toMatch(/Total\s+2\s+2\s+2,000\s+400\s+0\s+0\s+0\.008/);

    // One day only: one bar.
    const range = form('Usage range');
    await range.getByLabel('From').fill(today());
    await range.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => bars.count()).toBe(1);

    // The monthly budget: set (80% of it spent), then removed.
    const monthly = page.getByRole('region', { name: 'Monthly budget' });
    expect(await monthly.innerText()).toContain('none');
    const change = form('Change the monthly budget');
    await change.getByLabel(/^Max cost per month/).fill('0.01');
    await change.getByRole('button', { name: 'Save budget' }).click();
    await expect
      .poll(() => monthly.innerText())
      .toMatch(new RegExp(`cost at most 0\\.01 ${ledger.currency}[\\s\\S]*This month so far: 0\\.008 ${ledger.currency} \\(80% of the budget\\)`));
    expect((await ok(f.call('GET', ''))).budget).toEqual({ maxMonthlyCost: 0.01, maxMonthlyTokens: null });
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('41-usage');
    await change.getByRole('button', { name: 'Remove budget' }).click();
    await expect.poll(async () => (await ok(f.call('GET', ''))).budget).toBeNull();
    await expect.poll(() => monthly.locator('p').first().innerText()).toBe('none');
  });
});

describe('the context meter in the console', () => {
  it('shows the input of each turn against the window, and a compaction with its summary to read', async () => {
    // A threshold the second turn passes: the first exchange is summarized before it.
    const agent = await ok(
      f.call('POST', '/agents', {
        name: 'Long talker',
        initialConfig: {
          systemPrompt: 'Answer each turn.',
          modelPreset: 'fast',
          limits: { maxTurns: 4 },
          context: { compactAtTokens: 1000, keepRecentTurns: 1 },
        },
      }),
      201,
    );
    const fallback = f.fakes.vendor_a.defaultReply;
    // A window far away, so the fake reports the input it counted (not a fixed figure).
    f.fakes.vendor_a.contextWindow = 100_000;
    f.fakes.vendor_a.defaultReply = (request, lastUserText) =>
      JSON.stringify(request.body).includes('You compact the transcript')
        ? { text: 'SUMMARY: the user asked about the migration plan; nothing is open.' }
        : { text: `Answered: ${lastUserText.slice(0, 20)}` };
    try {
      const session = await ok(
        f.call('POST', '/sessions', { agentId: agent.id, title: 'Long talk', initialMessage: `Plan the migration. ${'u'.repeat(4_000)}` }),
        201,
      );
      await f.waitForRun(session.run.id);
      const second = await ok(f.call('POST', `/sessions/${session.id}/runs`, { message: 'And the rollback?' }), 202);
      expect((await f.waitForRun(second.id)).state).toBe('completed');
      const detail = await ok(f.call('GET', `/sessions/${session.id}`));
      expect(detail.context.compactions).toBe(1);

      await page.goto(`${origin}/sessions/${session.id}`);
      await expect.poll(() => page.getByRole('heading', { name: 'Context' }).isVisible()).toBe(true);
      const turns = page.getByRole('list', { name: 'Context per turn' });
      await expect.poll(() => turns.locator('meter').count()).toBe(2);
      const mark = turns.locator('li.compaction');
      expect(await mark.locator('summary').innerText()).toMatch(/^Compacted \(#1, past the threshold\): [\d,]+ → [\d,]+ tokens, 2 messages summarized$/);
      // The mark sits between the two turns it came between.
      expect(await turns.locator('li').nth(1).getAttribute('class')).toBe('compaction');
      await mark.locator('summary').click();
      await expect.poll(() => mark.locator('pre.summary').innerText()).toContain('SUMMARY: the user asked about the migration plan');
      expect(await auditAccessibility(page)).toEqual([]);
      await shot('42-context-meter');
    } finally {
      f.fakes.vendor_a.defaultReply = fallback;
      f.fakes.vendor_a.contextWindow = null;
    }
  });
});

describe('schedules in the console', () => {
  const table = () => page.getByRole('table', { name: 'Schedules' });
  const row = (name: RegExp) => table().getByRole('row', { name });

  it('creates a schedule that shows its next firings, runs it now, pauses and unpauses it', async () => {
    await nav('Schedules').click();
    await expect.poll(() => page.getByText('No schedules yet.').isVisible()).toBe(true);
    const create = form('New schedule');
    await create.getByLabel(/^Name/).fill('Hourly digest');
    await create.getByLabel('Every', { exact: true }).fill('1');
    await create.getByLabel('Unit').selectOption('hours');
    await create.getByLabel(/^Message/).fill('Summarize the last hour.');
    await create.getByRole('button', { name: 'Create schedule' }).click();
    const digest = row(/Hourly digest/);
    await expect
      .poll(() => digest.innerText())
      .toMatch(/Hourly digest\s+Summarize the last hour\.\s+Ledger agent\s+a new session each firing\s+every hour\s+overlap skip\s+active/);
    // The next three firings, an hour apart, once the Temporal Schedule exists.
    const next = digest.getByRole('list', { name: /^Next firings/ }).getByRole('listitem');
    await expect.poll(() => next.count()).toBe(3);
    const times = await next.locator('time').evaluateAll((nodes) => nodes.map((node) => Date.parse(node.getAttribute('datetime')!)));
    expect(times[1]! - times[0]!).toBe(3_600_000);
    const [schedule] = (await ok(f.call('GET', '/schedules'))).data;
    expect(schedule).toMatchObject({ name: 'Hourly digest', agentId, intervalSeconds: 3600, overlap: 'skip', target: 'new_session', paused: false });

    f.fakes.vendor_a.reply({ text: 'The digest.' });
    await digest.getByRole('button', { name: 'Run now' }).click();
    expect(await page.getByRole('status').innerText()).toContain('“Hourly digest” fired');
    const recent = digest.getByRole('list', { name: /^Recent firings/ });
    // Newest first (an hourly firing due meanwhile would come first, started too).
    await expect.poll(() => recent.getByRole('listitem').first().innerText(), { timeout: 20_000 }).toMatch(/^started\s+.+· session$/);
    const firing = (await ok(f.call('GET', `/schedules/${schedule.id}`))).recentFirings[0];
    expect(await recent.getByRole('link', { name: 'session' }).getAttribute('href')).toBe(`/sessions/${firing.sessionId}`);
    await shot('42-schedule-fired');

    await digest.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => digest.innerText()).toMatch(/paused\s+none while paused/);
    expect((await ok(f.call('GET', `/schedules/${schedule.id}`))).paused).toBe(true);
    await digest.getByRole('button', { name: 'Unpause' }).click();
    await expect
      .poll(() =>
        digest
          .getByRole('list', { name: /^Next firings/ })
          .getByRole('listitem')
          .count(),
      )
      .toBe(3);
    expect(await digest.innerText()).toContain('active');
    expect((await ok(f.call('GET', `/schedules/${schedule.id}`))).paused).toBe(false);
  });

  it('creates a cron schedule in a time zone, shows a refusal at its field, and deletes a schedule', async () => {
    const create = form('New schedule');
    await create.getByLabel('Repeat').selectOption('cron');
    await create.getByLabel(/^Cron expression/).fill('every weekday');
    await create.getByLabel(/^Message/).fill('The morning digest.');
    await create.getByRole('button', { name: 'Create schedule' }).click();
    await expect.poll(() => create.getByRole('alert').innerText()).toMatch(/at body\.cron/);

    await create.getByLabel(/^Name/).fill('Weekday mornings');
    await create.getByLabel(/^Cron expression/).fill('0 9 * * 1-5');
    await create.getByLabel(/^Time zone/).fill('Europe/Paris');
    await create.getByRole('button', { name: 'Create schedule' }).click();
    const mornings = row(/Weekday mornings/);
    await expect.poll(() => mornings.innerText()).toContain('cron 0 9 * * 1-5 (Europe/Paris)');
    await expect
      .poll(() =>
        mornings
          .getByRole('list', { name: /^Next firings/ })
          .getByRole('listitem')
          .count(),
      )
      .toBe(3);
    expect(await auditAccessibility(page)).toEqual([]);
    await shot('43-schedules');

    const created = (await ok(f.call('GET', '/schedules'))).data.find((entry: { name: string }) => entry.name === 'Weekday mornings');
    expect(created).toMatchObject({ cron: '0 9 * * 1-5', timeZone: 'Europe/Paris' });
    page.once('dialog', (dialog) => void dialog.accept());
    await mornings.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => mornings.count()).toBe(0);
    expect((await f.call('GET', `/schedules/${created.id}`)).status).toBe(404);
  });

  it('leaves out what a narrower principal may not do', async () => {
    // The signed-in principal narrowed to a viewer's scopes (reads only), then to fewer still.
    const narrow = (scopes: string[]) => f.t.database.db.update(principals).set({ scopes }).where(eq(principals.subject, DEVELOPMENT_SUBJECT));
    await narrow(scopesForRole('viewer').scopes);
    await page.goto(`${origin}/schedules`);
    await expect.poll(() => row(/Hourly digest/).isVisible()).toBe(true);
    expect(
      await row(/Hourly digest/)
        .getByRole('button')
        .count(),
    ).toBe(0);
    expect(await form('New schedule').count()).toBe(0);
    await nav('Usage').click();
    await expect.poll(() => page.locator('dl.figures').isVisible()).toBe(true);
    expect(await form('Change the monthly budget').count()).toBe(0);

    await narrow(['agent:read', 'session:read']);
    await page.goto(`${origin}/sessions`);
    await expect.poll(() => nav('Sessions').isVisible()).toBe(true);
    expect(await nav('Usage').count()).toBe(0);
    expect(await nav('Schedules').count()).toBe(0);
    await page.goto(`${origin}/usage`);
    await expect.poll(() => page.getByText('Reading usage and cost needs the usage:read scope.').isVisible()).toBe(true);
    await shot('44-narrow-principal');
  });
});
