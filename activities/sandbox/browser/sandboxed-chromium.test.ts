import { readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_SNAPSHOT } from '../../../domain/sandbox/snapshot-registry.ts';
import { launchSandboxedChromium, type SandboxedChromium } from './sandboxed-chromium.ts';
import { descendants } from './test-support.ts';

/**
 * What the sandboxed Chromium itself can see and do, driven through Playwright directly (so
 * without the tools' URL check): the snapshot's root and nothing of the host, as the sandbox
 * user, under the browser's rlimits, in its own network namespace.
 */
const asRoot = process.getuid?.() === 0;
let chromium: SandboxedChromium;
let page: Page;
let hostDir: string;

beforeAll(async () => {
  hostDir = await mkdtemp(path.join(tmpdir(), 'browser-host-'));
  await writeFile(path.join(hostDir, 'secret.txt'), 'host secret');
  chromium = await launchSandboxedChromium(
    { user: { uid: 65534, gid: 65534 }, bwrapPath: '/usr/bin/bwrap', chromiumPath: '/usr/lib/chromium/chromium', addressSpaceFloorMb: 16384 },
    { snapshot: BUILT_IN_SNAPSHOT, network: { mode: 'none' }, lifetimeMs: 60_000, launchTimeoutMs: 30_000 },
  );
  page = await chromium.browser.newPage();
});
afterAll(async () => {
  await chromium?.close();
  await rm(hostDir, { recursive: true, force: true });
});

const fileText = async (url: string) => {
  try {
    await page.goto(url);
    return await page.locator('body').innerText();
  } catch (error) {
    return /net::(ERR_\w+)/.exec((error as Error).message)?.[1] ?? 'error';
  }
};

const chromiumProcesses = () => [...descendants()].filter(([, command]) => command === '/usr/lib/chromium/chromium').map(([pid]) => pid);

describe('sandboxed chromium', () => {
  it('sees the snapshot root with generated /etc files, and nothing of the host', async () => {
    expect(await fileText('file:///etc/passwd')).toContain('sandbox:x:1000:1000:sandbox:/workspace:/bin/sh');
    expect(await fileText('file:///etc/shadow')).toBe('ERR_FILE_NOT_FOUND');
    expect(await fileText(`file://${hostDir}/secret.txt`)).toBe('ERR_FILE_NOT_FOUND');
    expect(await fileText('file:///workspace/')).toBe('ERR_FILE_NOT_FOUND');
    expect(await fileText('file:///root/')).toBe('ERR_FILE_NOT_FOUND');
    expect(await fileText('file:///etc/hostname')).toBe('ERR_FILE_NOT_FOUND');
  });

  it.runIf(asRoot)('runs as the sandbox user under the browser rlimits, in its own namespaces', () => {
    const pids = chromiumProcesses();
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(/^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/)).toEqual(['65534', '65534', '65534', '65534']);
      expect(/^CapEff:\s+(\w+)$/m.exec(status)?.[1]).toBe('0000000000000000');
      expect(readFileSync(`/proc/${pid}/limits`, 'utf8')).toMatch(/^Max address space\s+137438953472\s+137438953472\s+bytes/m);
      for (const ns of ['net', 'pid', 'mnt', 'user', 'ipc', 'uts'])
        expect(readlinkSync(`/proc/${pid}/ns/${ns}`), ns).not.toBe(readlinkSync(`/proc/self/ns/${ns}`));
    }
  });

  it('leaves no process behind when closed', async () => {
    const before = descendants();
    const second = await launchSandboxedChromium(
      { user: { uid: 65534, gid: 65534 }, bwrapPath: '/usr/bin/bwrap', chromiumPath: '/usr/lib/chromium/chromium', addressSpaceFloorMb: 16384 },
      {
        snapshot: BUILT_IN_SNAPSHOT,
        network: { mode: 'restricted', allowedDomains: [], allowedCidrs: ['127.0.0.1/32'] },
        lifetimeMs: 60_000,
        launchTimeoutMs: 30_000,
      },
    );
    const running = [...descendants()].filter(([pid]) => !before.has(pid)).map(([, command]) => path.basename(command));
    expect(running).toEqual(expect.arrayContaining(['bwrap', 'socat', 'chromium']));
    await second.close();
    expect([...descendants().keys()].filter((pid) => !before.has(pid))).toEqual([]);
  });
});
