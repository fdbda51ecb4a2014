import { errors, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import type { Snapshot } from '../../../domain/sandbox/snapshot-registry.ts';
import type { SandboxToolName } from '../../../domain/sandbox/tools.ts';
import type { EgressGuard } from '../local/egress-guard.ts';
import { EGRESS_ANSWER_HEADER, type HostLookup } from '../local/egress-proxy.ts';
import type { SandboxNetwork } from '../local/exec-request.ts';
import { DEFAULT_ADDRESS_SPACE_FLOOR_MB } from '../local/limits.ts';
import { assertSandboxId, resolveSandboxUser, type SandboxUser } from '../local/workspace.ts';
import { assignRefsScript, REF_ATTRIBUTE, REF_PATTERN, type PageElement } from './page-refs.ts';
import { launchSandboxedChromium, type SandboxedChromium, type SandboxedChromiumOptions } from './sandboxed-chromium.ts';
import { oneAtATime } from '../one-at-a-time.ts';

/**
 * The browser tools (`browser_navigate`, `browser_snapshot`, `browser_interact`) on a Chromium
 * per sandbox, started on first use inside the sandbox's isolation and network policy (see
 * `sandboxed-chromium.ts` and README.md). It stays up between calls so they share one page, and
 * is closed after `idleMs` without a call, after `maxLifetimeMs`, when the network policy or
 * snapshot a call names differs from the one it was started with, and on `close()`.
 *
 * State is best effort: it lives in this worker process only. After a worker restart, a crash or
 * a closed browser, the next call starts a fresh browser on about:blank.
 */
export type BrowserToolName = Extract<SandboxToolName, 'browser_navigate' | 'browser_snapshot' | 'browser_interact'>;

export type BrowserToolInput = {
  sandboxId: string;
  snapshot: Snapshot;
  network: SandboxNetwork;
  toolName: BrowserToolName;
  args: Record<string, unknown>;
  signal?: AbortSignal;
};

export type BrowserToolOutcome = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

export type SandboxBrowsersOptions = {
  /** Host uid/gid a root worker runs the browser as (default 65534, nobody); never 0. */
  sandboxUser?: SandboxUser;
  bwrapPath?: string;
  /** Chromium's binary inside the snapshot; default Debian's /usr/lib/chromium/chromium. */
  chromiumPath?: string;
  /** RLIMIT_AS floor in MiB; the browser always gets at least BROWSER_ADDRESS_SPACE_FLOOR_MB. */
  addressSpaceFloorMb?: number;
  /** DNS for the egress proxy; the system resolver by default. */
  lookup?: HostLookup;
  /** The server's address policy over `restricted` egress; public addresses only by default. */
  egressGuard?: EgressGuard;
  /** Close a sandbox's browser after this long without a call (default 5 minutes). */
  idleMs?: number;
  /** Restart a browser this old (default 30 minutes); with the snapshot's cpu, its CPU budget. */
  maxLifetimeMs?: number;
  launchTimeoutMs?: number;
  /** The most one tool call may take (default 60 s); past it the browser is closed. */
  callTimeoutMs?: number;
  /** Where unexpected failures (a browser that does not start, a tool that throws) are reported. */
  logger?: { warn(message: string, fields?: Record<string, unknown>): void };
};

export type SandboxBrowsers = {
  run(input: BrowserToolInput): Promise<BrowserToolOutcome>;
  /** Closes every browser; calls in flight end with `ok: false`. */
  close(): Promise<void>;
};

const NAVIGATION_TIMEOUT_MS = 30_000;
const ACTION_TIMEOUT_MS = 10_000;
const SETTLE_TIMEOUT_MS = 5_000;
const POPUP_GRACE_MS = 250;
const ERROR_PAGE_WAIT_MS = 2_000;
const MAX_ELEMENTS = 200;
const MAX_PAGES = 5;
const MAX_SNAPSHOT_CHARS = 20_000;
const MAX_URL_CHARS = 8_192;
const MAX_TEXT_CHARS = 100_000;

type Session = {
  fingerprint: string;
  chromium: SandboxedChromium;
  context: BrowserContext;
  page: Page | null;
  startedAt: number;
  idleTimer: NodeJS.Timeout | null;
};

type Failure = { ok: false; message: string };
const fail = (message: string): Failure => ({ ok: false, message });

export function createSandboxBrowsers(options: SandboxBrowsersOptions = {}): SandboxBrowsers {
  const launchOptions: SandboxedChromiumOptions = {
    user: resolveSandboxUser(options.sandboxUser),
    bwrapPath: options.bwrapPath ?? '/usr/bin/bwrap',
    chromiumPath: options.chromiumPath ?? '/usr/lib/chromium/chromium',
    addressSpaceFloorMb: options.addressSpaceFloorMb ?? DEFAULT_ADDRESS_SPACE_FLOOR_MB,
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.egressGuard ? { egressGuard: options.egressGuard } : {}),
  };
  const idleMs = options.idleMs ?? 5 * 60_000;
  const maxLifetimeMs = options.maxLifetimeMs ?? 30 * 60_000;
  const launchTimeoutMs = options.launchTimeoutMs ?? 30_000;
  const callTimeoutMs = options.callTimeoutMs ?? 60_000;
  const sessions = new Map<string, Session>();
  // One call at a time per sandbox: navigate, snapshot and interact share its page.
  const withLock = oneAtATime();
  let closed = false;

  async function endSession(sandboxId: string, session: Session): Promise<void> {
    if (session.idleTimer) clearTimeout(session.idleTimer);
    if (sessions.get(sandboxId) === session) sessions.delete(sandboxId);
    await session.chromium.close();
  }

  async function sessionFor(input: BrowserToolInput): Promise<Session> {
    const fingerprint = JSON.stringify({ snapshot: [input.snapshot.id, input.snapshot.resource, input.snapshot.rootfs], network: input.network });
    const current = sessions.get(input.sandboxId);
    if (current && current.fingerprint === fingerprint && current.chromium.browser.isConnected() && Date.now() - current.startedAt < maxLifetimeMs)
      return current;
    if (current) await endSession(input.sandboxId, current);

    const chromium = await launchSandboxedChromium(launchOptions, {
      snapshot: input.snapshot,
      network: input.network,
      lifetimeMs: maxLifetimeMs,
      launchTimeoutMs,
    });
    try {
      if (closed) throw new InternalConfigurationError('The sandbox browsers were closed during the launch');
      const context = await chromium.browser.newContext({ acceptDownloads: false, serviceWorkers: 'block', viewport: { width: 1280, height: 800 } });
      context.setDefaultTimeout(ACTION_TIMEOUT_MS);
      context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
      const session: Session = { fingerprint, chromium, context, page: null, startedAt: Date.now(), idleTimer: null };
      // A popup (target=_blank, window.open) becomes the page the next call works on; the
      // oldest tabs past MAX_PAGES are closed.
      context.on('page', (page) => {
        session.page = page;
        const open = context.pages();
        for (const old of open.slice(0, Math.max(0, open.length - MAX_PAGES))) void old.close().catch(() => {});
      });
      chromium.browser.once('disconnected', () => {
        if (sessions.get(input.sandboxId) === session) sessions.delete(input.sandboxId);
        if (session.idleTimer) clearTimeout(session.idleTimer);
      });
      sessions.set(input.sandboxId, session);
      return session;
    } catch (error) {
      await chromium.close();
      throw error;
    }
  }

  async function pageOf(session: Session): Promise<Page> {
    if (session.page && !session.page.isClosed()) return session.page;
    session.page =
      session.context
        .pages()
        .filter((page) => !page.isClosed())
        .at(-1) ?? (await session.context.newPage());
    return session.page;
  }

  function armIdleTimer(sandboxId: string, session: Session) {
    if (session.idleTimer) clearTimeout(session.idleTimer);
    const wait = Math.max(0, Math.min(idleMs, session.startedAt + maxLifetimeMs - Date.now()));
    session.idleTimer = setTimeout(() => {
      void withLock(sandboxId, async () => {
        if (sessions.get(sandboxId) === session) await endSession(sandboxId, session);
      });
    }, wait);
    session.idleTimer.unref();
  }

  const tools: Record<BrowserToolName, (session: Session, args: Record<string, unknown>, network: SandboxNetwork) => Promise<BrowserToolOutcome>> = {
    async browser_navigate(session, args, network) {
      const page = await pageOf(session);
      const url = checkUrl(args.url) as URL;
      let response;
      try {
        response = await page.goto(url.href, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
      } catch (error) {
        // Chromium commits its error page just after the failure is reported; a navigation
        // started before that would be interrupted by it.
        await page.waitForURL((current) => current.protocol === 'chrome-error:', { waitUntil: 'commit', timeout: ERROR_PAGE_WAIT_MS }).catch(() => {});
        return fail(navigationFailure(error, url, network));
      }
      const egressAnswer = network.mode === 'restricted' && url.protocol === 'http:' ? response?.headers()[EGRESS_ANSWER_HEADER] : undefined;
      if (egressAnswer === '403') return fail(`The sandbox network policy does not allow ${url.host}`);
      if (egressAnswer) return fail(`${url.host} could not be reached through the sandbox egress proxy`);
      await settle(page);
      return { ok: true, value: { url: page.url(), title: await page.title(), status: response?.status() ?? null } };
    },

    async browser_snapshot(session) {
      const page = await pageOf(session);
      const elements = (await page.evaluate(assignRefsScript(MAX_ELEMENTS))) as PageElement[];
      const full = await page.locator('body').ariaSnapshot({ timeout: ACTION_TIMEOUT_MS });
      const truncated = full.length > MAX_SNAPSHOT_CHARS;
      const snapshot = truncated ? `${full.slice(0, MAX_SNAPSHOT_CHARS)}\n… (snapshot cut at ${MAX_SNAPSHOT_CHARS} characters)` : full;
      return { ok: true, value: { url: page.url(), title: await page.title(), snapshot, truncated, elements } };
    },

    async browser_interact(session, args) {
      const page = await pageOf(session);
      const { action, ref, text } = args as { action: 'click' | 'type' | 'select'; ref: string; text?: string };
      const target = page.locator(`[${REF_ATTRIBUTE}="${ref}"]`);
      const count = await target.count();
      if (count === 0) return fail(`No element ${ref} on the current page; take a new browser_snapshot`);
      if (count > 1) return fail(`Reference ${ref} matches ${count} elements; take a new browser_snapshot`);
      try {
        if (action === 'click') await clickAndCatchPopup(session.context, target);
        else if (action === 'type') await target.fill(text!);
        else await target.selectOption(text!);
      } catch (error) {
        if (error instanceof errors.TimeoutError) {
          const hint = action === 'select' ? 'is it visible and enabled, and does it have that option?' : 'is it visible, enabled and not covered?';
          return fail(`Could not ${action} ${ref} within ${ACTION_TIMEOUT_MS / 1000} s (${hint})`);
        }
        return fail(`Could not ${action} ${ref}: ${actionFailure(error)}`);
      }
      // A click may have opened a popup, which is now the current page.
      const current = await pageOf(session);
      await settle(current);
      return { ok: true, value: { url: current.url(), title: await current.title() } };
    },
  };

  async function runLocked(input: BrowserToolInput): Promise<BrowserToolOutcome> {
    if (closed) return fail('The sandbox browser is shut down');
    if (input.signal?.aborted) return fail('The browser call was cancelled');
    // Bad arguments never start a browser.
    const invalid = checkArgs(input.toolName, input.args);
    if (invalid) return fail(invalid);
    let session: Session;
    try {
      session = await sessionFor(input);
    } catch (error) {
      options.logger?.warn('sandbox browser did not start', { sandboxId: input.sandboxId, snapshotId: input.snapshot.id, error });
      return fail('The sandbox browser could not be started');
    }
    if (session.idleTimer) clearTimeout(session.idleTimer);
    // Cancellation, or a page that never answers (a busy loop stalls even page.title()), ends
    // this browser; in-flight Playwright calls then fail and the next call starts a new one.
    const stop = new AbortController();
    // Set by onStop; declared by a cast so that TypeScript does not narrow it to `null` (it cannot
    // see the assignment inside the callback) where the catch below awaits it.
    let stopping = null as Promise<void> | null;
    const stopped = new Promise<never>((_resolve, reject) => {
      const onStop = () => {
        stopping = endSession(input.sandboxId, session);
        reject(new Error('stopped'));
      };
      stop.signal.addEventListener('abort', onStop, { once: true });
    });
    stopped.catch(() => {});
    const cancel = () => stop.abort('cancelled');
    const deadline = setTimeout(() => stop.abort('timeout'), callTimeoutMs);
    input.signal?.addEventListener('abort', cancel, { once: true });
    try {
      if (input.signal?.aborted) cancel();
      return await Promise.race([tools[input.toolName](session, input.args, input.network), stopped]);
    } catch (error) {
      await stopping;
      if (stop.signal.reason === 'cancelled') return fail('The browser call was cancelled');
      if (stop.signal.reason === 'timeout')
        return fail(`The browser did not finish within ${callTimeoutMs / 1000} s and was closed; the next call starts a new one`);
      if (!session.chromium.browser.isConnected()) return fail('The sandbox browser stopped (it crashed or hit a limit); the next call starts a new one');
      options.logger?.warn('sandbox browser tool failed', { sandboxId: input.sandboxId, toolName: input.toolName, error });
      return fail(`${input.toolName} failed`);
    } finally {
      clearTimeout(deadline);
      input.signal?.removeEventListener('abort', cancel);
      if (sessions.get(input.sandboxId) === session) armIdleTimer(input.sandboxId, session);
    }
  }

  return {
    run(input) {
      if (closed) return Promise.reject(new InternalConfigurationError('The sandbox browsers are closed'));
      assertSandboxId(input.sandboxId);
      if (!Object.hasOwn(tools, input.toolName)) return Promise.resolve(fail(`${String(input.toolName)} is not a browser tool`));
      const sandboxId = input.sandboxId.toLowerCase();
      return withLock(sandboxId, () => runLocked({ ...input, sandboxId, args: input.args ?? {} }));
    },
    async close() {
      closed = true;
      await Promise.allSettled([...sessions.entries()].map(([sandboxId, session]) => endSession(sandboxId, session)));
    },
  };
}

/** What the tools' schemas cannot say; a message for the model, or null when the arguments are usable. */
function checkArgs(toolName: BrowserToolName, args: Record<string, unknown>): string | null {
  if (toolName === 'browser_navigate') {
    const url = checkUrl(args.url);
    return typeof url === 'string' ? url : null;
  }
  if (toolName !== 'browser_interact') return null;
  const { action, ref, text } = args;
  if (action !== 'click' && action !== 'type' && action !== 'select') return 'action must be click, type or select';
  if (typeof ref !== 'string' || !REF_PATTERN.test(ref)) return 'ref must be an element reference such as "e3" from browser_snapshot';
  if (action !== 'click' && (typeof text !== 'string' || text.length > MAX_TEXT_CHARS))
    return `text (a string of at most ${MAX_TEXT_CHARS} characters) is required to ${action}`;
  return null;
}

/** Only absolute http(s) URLs: no file:, chrome:, data:, javascript: or view-source: pages. */
export function checkUrl(raw: unknown): URL | string {
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > MAX_URL_CHARS)
    return `url must be an absolute http or https URL of at most ${MAX_URL_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `Only http and https URLs can be opened, not ${url.protocol.slice(0, 20)} URLs`;
  return url;
}

/**
 * Playwright reports a popup (target=_blank, window.open) a few milliseconds after the click that
 * opened it returns, so a click waits briefly for one; the `page` listener makes it current.
 */
async function clickAndCatchPopup(context: BrowserContext, target: Locator): Promise<void> {
  let opened = () => {};
  const popup = new Promise<void>((resolve) => (opened = resolve));
  let timer: NodeJS.Timeout | undefined;
  context.on('page', opened);
  try {
    await target.click();
    await Promise.race([popup, new Promise((resolve) => (timer = setTimeout(resolve, POPUP_GRACE_MS)))]);
  } finally {
    context.off('page', opened);
    clearTimeout(timer);
  }
}

/** After an action or navigation, give the page a moment to finish loading; never fails. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('load', { timeout: SETTLE_TIMEOUT_MS }).catch(() => {});
}

/** A short message from Chromium's network error code; no page content or stack. */
function navigationFailure(error: unknown, url: URL, network: SandboxNetwork): string {
  if (error instanceof errors.TimeoutError) return `Opening ${url.host} timed out after ${NAVIGATION_TIMEOUT_MS / 1000} s`;
  const code = /net::(ERR_[A-Z0-9_]+)/.exec(error instanceof Error ? error.message : '')?.[1];
  if (network.mode === 'none' && code !== 'ERR_ABORTED') return `Cannot open ${url.host} (${code ?? 'error'}): this sandbox has no network access`;
  if (code === 'ERR_TUNNEL_CONNECTION_FAILED') return `Cannot open ${url.host}: the sandbox network policy does not allow it, or it could not be reached`;
  return `Cannot open ${url.host} (${code ?? 'navigation failed'})`;
}

function actionFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  // Playwright's first line names the problem ("Element is not a <select> element" …); the
  // call log after it may quote page content.
  return (
    message
      .split('\n')[0]!
      .replace(/^[\w.]+: /, '')
      .slice(0, 200) || 'the action failed'
  );
}
