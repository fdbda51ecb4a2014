import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SandboxNetwork } from '../local/exec-request.ts';
import { BUILT_IN_SNAPSHOT } from '../../../domain/sandbox/snapshot-registry.ts';
import { canStartEgressTestHost, startEgressTestHost, type EgressTestHost } from '../../../test/support/egress-test-host.ts';
import { createSandboxBrowsers, type BrowserToolInput, type SandboxBrowsers } from './browser-tools.ts';
import { descendants } from './test-support.ts';

/**
 * The browser tools end to end: real Chromium in real bwrap, pages from an HTTP server exposed on
 * a test host (a network namespace at a private address, allowed by the test policy with the
 * development private-network setting) and one on this host's loopback (127.0.0.2: never).
 */
const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const HOME = `<!doctype html><html><head><title>Shop home</title></head><body>
<h1>Welcome to the shop</h1>
<a href="/about">About us</a> <a href="/help" target="_blank">Help</a>
<form action="/greet" method="get">
  <label for="name">Your name</label> <input id="name" name="name">
  <select name="color" aria-label="Colour"><option value="r">red</option><option value="b">blue</option></select>
  <button type="submit">Send</button>
</form>
<div hidden><button>Invisible</button></div>
</body></html>`;

/** Listens on `host`; `origin` names `advertised` (the test host that forwards to it) when given. */
async function startSite(host: string, advertised = host): Promise<{ origin: string; goBusy(): Promise<void>; close(): Promise<void> }> {
  // `/busy` loops forever once the test calls goBusy() (its held request then answers), so
  // the loop cannot start while the navigate call is still reading the page.
  const heldUntilBusy = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/') return res.end(HOME);
    // An origin cannot pass its own answer off as the egress proxy's: the proxy drops the marker.
    if (url.pathname === '/forbidden') return res.writeHead(403, { 'x-sandbox-egress': '403' }).end('<title>Origin says no</title>');
    if (url.pathname === '/hang') return; // never answers
    if (url.pathname === '/busy') return res.end("<!doctype html><title>Busy</title><script>fetch('/busy/go').then(() => { for (;;); })</script>");
    if (url.pathname === '/busy/go') return void heldUntilBusy.add(res);
    if (url.pathname === '/help') return res.end('<!doctype html><title>Help</title><h1>How to shop</h1>');
    if (url.pathname === '/greet') {
      const name = escape(url.searchParams.get('name') ?? '');
      const color = escape(url.searchParams.get('color') ?? '');
      return res.end(`<!doctype html><title>Hello ${name}</title><p>You picked ${color}</p>`);
    }
    res.statusCode = 404;
    res.end('<title>Not found</title>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    origin: `http://${advertised}:${address.port}`,
    goBusy: async () => {
      while (heldUntilBusy.size === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const res of heldUntilBusy) res.end('go');
      heldUntilBusy.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// The test host is private: reachable only where the server allows private networks.
const egressGuard = { allowPrivateNetwork: true };
let restricted: SandboxNetwork;
let browsers: SandboxBrowsers;
let host: EgressTestHost;
let site: Awaited<ReturnType<typeof startSite>>;
let other: Awaited<ReturnType<typeof startSite>>;

beforeAll(async () => {
  browsers = createSandboxBrowsers({ idleMs: 60_000, egressGuard });
  if (!canStartEgressTestHost) return;
  host = await startEgressTestHost();
  restricted = { mode: 'restricted', allowedDomains: [], allowedCidrs: [`${host.address}/32`] };
  [site, other] = await Promise.all([startSite(host.hostSideAddress, host.address), startSite('127.0.0.2')]);
  await host.expose(Number(new URL(site.origin).port));
});
afterAll(async () => {
  await browsers.close();
  await Promise.all([site?.close(), other?.close()]);
  await host?.close();
});

const call = (sandboxId: string, network: SandboxNetwork, toolName: BrowserToolInput['toolName'], args: Record<string, unknown> = {}) =>
  browsers.run({ sandboxId, snapshot: BUILT_IN_SNAPSHOT, network, toolName, args });

type Element = { ref: string; role: string; name: string };
const valueOf = (outcome: Awaited<ReturnType<typeof call>>) => {
  if (!outcome.ok) throw new Error(`expected success, got: ${outcome.message}`);
  return outcome.value;
};

describe.skipIf(!canStartEgressTestHost)('browser tools under restricted network', () => {
  const sandboxId = randomUUID();

  it('navigates, snapshots with references, fills a form and follows it to the next page', async () => {
    const opened = valueOf(await call(sandboxId, restricted, 'browser_navigate', { url: `${site.origin}/` }));
    expect(opened).toEqual({ url: `${site.origin}/`, title: 'Shop home', status: 200 });

    const first = valueOf(await call(sandboxId, restricted, 'browser_snapshot'));
    expect(first.title).toBe('Shop home');
    expect(first.snapshot).toContain('heading "Welcome to the shop"');
    expect(first.snapshot).toContain('link "About us"');
    expect(first.snapshot).toContain('button "Send"');
    const elements = first.elements as Element[];
    expect(elements.map(({ role, name }) => ({ role, name }))).toEqual([
      { role: 'link', name: 'About us' },
      { role: 'link', name: 'Help' },
      { role: 'textbox', name: 'Your name' },
      { role: 'combobox', name: 'Colour' },
      { role: 'button', name: 'Send' },
    ]);
    expect(new Set(elements.map((element) => element.ref)).size).toBe(5);
    // The same elements keep their references.
    const again = valueOf(await call(sandboxId, restricted, 'browser_snapshot'));
    expect(again.elements).toEqual(elements);

    const ref = (name: string) => elements.find((element) => element.name === name)!.ref;
    expect(valueOf(await call(sandboxId, restricted, 'browser_interact', { action: 'type', ref: ref('Your name'), text: 'Ada <Lovelace>' }))).toMatchObject({
      title: 'Shop home',
    });
    valueOf(await call(sandboxId, restricted, 'browser_interact', { action: 'select', ref: ref('Colour'), text: 'blue' }));
    const sent = valueOf(await call(sandboxId, restricted, 'browser_interact', { action: 'click', ref: ref('Send') }));
    expect(sent.title).toBe('Hello Ada <Lovelace>');
    expect(sent.url).toBe(`${site.origin}/greet?name=Ada+%3CLovelace%3E&color=b`);

    const after = valueOf(await call(sandboxId, restricted, 'browser_snapshot'));
    expect(after.snapshot).toContain('You picked b');
  });

  it('follows a link that opens a new tab: the new tab becomes the current page', async () => {
    valueOf(await call(sandboxId, restricted, 'browser_navigate', { url: `${site.origin}/` }));
    const elements = valueOf(await call(sandboxId, restricted, 'browser_snapshot')).elements as Element[];
    const help = elements.find((element) => element.name === 'Help')!;
    expect(valueOf(await call(sandboxId, restricted, 'browser_interact', { action: 'click', ref: help.ref }))).toEqual({
      url: `${site.origin}/help`,
      title: 'Help',
    });
    expect(valueOf(await call(sandboxId, restricted, 'browser_snapshot')).snapshot).toContain('heading "How to shop"');
  });

  it('refuses an unknown reference and bad arguments with a message', async () => {
    const unknown = await call(sandboxId, restricted, 'browser_interact', { action: 'click', ref: 'e999' });
    expect(unknown).toEqual({ ok: false, message: expect.stringMatching(/No element e999/) });
    const injected = await call(sandboxId, restricted, 'browser_interact', { action: 'click', ref: 'e1"], body, [x="' });
    expect(injected).toEqual({ ok: false, message: expect.stringMatching(/ref must be/) });
    const noText = await call(sandboxId, restricted, 'browser_interact', { action: 'type', ref: 'e1' });
    expect(noText).toEqual({ ok: false, message: expect.stringMatching(/text .* is required/) });
  });

  it('refuses a target the policy does not allow, through the proxy', async () => {
    const refused = await call(sandboxId, restricted, 'browser_navigate', { url: `${other.origin}/` });
    expect(refused).toEqual({ ok: false, message: 'The sandbox network policy does not allow ' + new URL(other.origin).host });
    const tunnelled = await call(sandboxId, restricted, 'browser_navigate', { url: `https://127.0.0.2:${new URL(other.origin).port}/` });
    expect(valueOf(await call(sandboxId, restricted, 'browser_navigate', { url: `${site.origin}/forbidden` }))).toMatchObject({
      title: 'Origin says no',
      status: 403,
    });
    expect(tunnelled).toEqual({ ok: false, message: expect.stringMatching(/does not allow it, or it could not be reached/) });
  });

  it('opens only http and https URLs', async () => {
    for (const url of [
      'file:///etc/passwd',
      'chrome://version',
      'javascript:alert(1)',
      'data:text/html,<h1>x</h1>',
      'view-source:http://127.0.0.1/',
      '/relative',
      'http//x',
    ]) {
      const outcome = await call(sandboxId, restricted, 'browser_navigate', { url });
      expect(outcome.ok, url).toBe(false);
    }
    const refused = await call(sandboxId, restricted, 'browser_navigate', { url: 'file:///etc/passwd' });
    expect(refused).toEqual({ ok: false, message: 'Only http and https URLs can be opened, not file: URLs' });
  });
});

describe.skipIf(!canStartEgressTestHost)('browser tools under network none', () => {
  it('cannot reach the host loopback', async () => {
    const outcome = await call(randomUUID(), { mode: 'none' }, 'browser_navigate', { url: `${other.origin}/` });
    expect(outcome).toEqual({
      ok: false,
      message: expect.stringMatching(/^Cannot open 127\.0\.0\.2:\d+ \(ERR_CONNECTION_REFUSED\): this sandbox has no network access$/),
    });
  });
});

describe.skipIf(!canStartEgressTestHost)('browser tools and the address policy (issue 28)', () => {
  it('never open the worker host itself, even under an allowlist of everything', async () => {
    const everything: SandboxNetwork = { mode: 'restricted', allowedDomains: [], allowedCidrs: ['0.0.0.0/0', '::/0'] };
    const sandboxId = randomUUID();
    const sitePort = new URL(site.origin).port;
    for (const target of [new URL(other.origin).host, `127.0.0.1:${sitePort}`, `${host.hostSideAddress}:${sitePort}`, `[::1]:${sitePort}`]) {
      expect(await call(sandboxId, everything, 'browser_navigate', { url: `http://${target}/` }), target).toEqual({
        ok: false,
        message: `The sandbox network policy does not allow ${target}`,
      });
    }
    // The same browser opens the test host: the refusals are the policy's.
    expect(valueOf(await call(sandboxId, everything, 'browser_navigate', { url: `${site.origin}/` }))).toMatchObject({ title: 'Shop home' });
  });
});

describe.skipIf(!canStartEgressTestHost)('browser lifetime', () => {
  it('a cancelled call ends the browser; the next call starts a fresh one', async () => {
    const sandboxId = randomUUID();
    valueOf(await call(sandboxId, restricted, 'browser_navigate', { url: `${site.origin}/` }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    // The page never answers: only the cancellation ends the call (the 60 s deadline says otherwise).
    const cancelled = await browsers.run({
      sandboxId,
      snapshot: BUILT_IN_SNAPSHOT,
      network: restricted,
      toolName: 'browser_navigate',
      args: { url: `${site.origin}/hang` },
      signal: controller.signal,
    });
    expect(cancelled).toEqual({ ok: false, message: 'The browser call was cancelled' });
    expect(valueOf(await call(sandboxId, restricted, 'browser_snapshot')).url).toBe('about:blank');
  });

  it('closes a browser whose page stops answering, and recovers from a killed browser', async () => {
    // The deadline is the subject, and it covers a call's browser start too (Chromium took over
    // 1.5 s to start beside two other test files on a slow day): 10 s, so every call that should
    // finish does on a slow host, while a hung page is noticed 10 s in.
    const strict = createSandboxBrowsers({ callTimeoutMs: 10_000, egressGuard });
    const run = (sandboxId: string, toolName: BrowserToolInput['toolName'], args: Record<string, unknown> = {}) =>
      strict.run({ sandboxId, snapshot: BUILT_IN_SNAPSHOT, network: restricted, toolName, args });
    try {
      const busy = randomUUID();
      expect(valueOf(await run(busy, 'browser_navigate', { url: `${site.origin}/busy` })).title).toBe('Busy');
      await site.goBusy();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await run(busy, 'browser_snapshot')).toEqual({ ok: false, message: expect.stringMatching(/did not finish within 10 s and was closed/) });
      expect(valueOf(await run(busy, 'browser_snapshot')).url).toBe('about:blank');

      const killed = randomUUID();
      const before = new Set(descendants().keys());
      valueOf(await run(killed, 'browser_navigate', { url: `${site.origin}/` }));
      for (const [pid, command] of descendants()) if (!before.has(pid) && command.endsWith('/chromium')) process.kill(pid, 'SIGKILL');
      const next = await run(killed, 'browser_snapshot');
      // Whether the loss is noticed before or during the call, the browser after it is new.
      if (!next.ok) expect(next.message).toMatch(/stopped/);
      expect(valueOf(next.ok ? next : await run(killed, 'browser_snapshot')).url).toBe('about:blank');
    } finally {
      await strict.close();
    }
  });

  it('closes an idle browser; the next call starts a fresh one', async () => {
    // Idle for 3 s (the second call comes well within it, however slow the host).
    const short = createSandboxBrowsers({ idleMs: 3_000, egressGuard });
    try {
      const sandboxId = randomUUID();
      const before = new Set(descendants().keys());
      valueOf(await short.run({ sandboxId, snapshot: BUILT_IN_SNAPSHOT, network: restricted, toolName: 'browser_navigate', args: { url: `${site.origin}/` } }));
      const browser = [...descendants()].filter(([pid, command]) => !before.has(pid) && command.endsWith('/chromium')).map(([pid]) => pid);
      expect(browser.length).toBeGreaterThan(0);
      expect(valueOf(await short.run({ sandboxId, snapshot: BUILT_IN_SNAPSHOT, network: restricted, toolName: 'browser_snapshot', args: {} })).title).toBe(
        'Shop home',
      );
      // Closed once idle: its processes end (waited for, not slept on).
      await vi.waitFor(() => expect(browser.filter((pid) => descendants().has(pid))).toEqual([]), { timeout: 30_000, interval: 100 });
      const fresh = valueOf(await short.run({ sandboxId, snapshot: BUILT_IN_SNAPSHOT, network: restricted, toolName: 'browser_snapshot', args: {} }));
      expect(fresh.url).toBe('about:blank');
    } finally {
      await short.close();
    }
    await expect(
      short.run({ sandboxId: randomUUID(), snapshot: BUILT_IN_SNAPSHOT, network: restricted, toolName: 'browser_snapshot', args: {} }),
    ).rejects.toThrow(/closed/);
  });
});
