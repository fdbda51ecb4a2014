import { BUILT_IN_SNAPSHOT } from '../../../domain/sandbox/snapshot-registry.ts';
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecRequest } from './driver.ts';
import { createTestDriver, type TestDriver } from './test-support.ts';

/** The workspace, stdin/stdout, and every way out of the filesystem and process view. Real bwrap. */
let t: TestDriver;
beforeAll(async () => {
  t = await createTestDriver();
});
afterAll(() => t.cleanup());

const sh = (sandboxId: string, script: string, extra: Partial<ExecRequest> = {}) =>
  t.driver.exec({ sandboxId, snapshot: BUILT_IN_SNAPSHOT, argv: ['/bin/bash', '-c', script], network: { mode: 'none' }, timeoutMs: 10_000, ...extra });

describe('local sandbox driver: workspace', () => {
  it('runs in /workspace as the sandbox user, and files written there appear in the host workspace', async () => {
    const id = randomUUID();
    const host = await t.driver.ensureWorkspace(id);
    expect(host).toBe(path.join(t.dataDir, 'sandboxes', id, 'workspace'));
    expect((await stat(host)).mode & 0o777).toBe(0o700);

    const result = await sh(id, 'pwd; id -u; hostname; echo -n made > out.txt; mkdir -p sub/dir; env | sort');
    expect(result.exitCode).toBe(0);
    const [pwd, uid, hostname, ...env] = result.stdout.trim().split('\n');
    expect([pwd, uid, hostname]).toEqual(['/workspace', '1000', 'sandbox']);
    expect(env.map((line) => line.split('=')[0])).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'SHLVL', 'TERM', '_']);
    expect(await readFile(path.join(host, 'out.txt'), 'utf8')).toBe('made');

    const inSub = await sh(id, 'pwd', { cwd: 'sub/dir' });
    expect(inSub.stdout).toBe('/workspace/sub/dir\n');

    await t.driver.removeWorkspace(id);
    expect(existsSync(path.join(t.dataDir, 'sandboxes', id))).toBe(false);
  });

  it('round-trips every byte value through stdin, as raw stdout and through base64', async () => {
    const id = randomUUID();
    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    const raw = await t.driver.exec({
      sandboxId: id,
      snapshot: BUILT_IN_SNAPSHOT,
      argv: ['cat'],
      stdin: bytes,
      stdoutEncoding: 'base64',
      network: { mode: 'none' },
      timeoutMs: 10_000,
    });
    expect(Buffer.from(raw.stdout, 'base64')).toEqual(Buffer.from(bytes));

    const encoded = await t.driver.exec({
      sandboxId: id,
      snapshot: BUILT_IN_SNAPSHOT,
      argv: ['base64', '-w0'],
      stdin: bytes,
      network: { mode: 'none' },
      timeoutMs: 10_000,
    });
    expect(Buffer.from(encoded.stdout, 'base64')).toEqual(Buffer.from(bytes));

    // Writing a file through stdin keeps it byte-exact on the host too.
    await t.driver.exec({
      sandboxId: id,
      snapshot: BUILT_IN_SNAPSHOT,
      argv: ['bash', '-c', 'cat > blob.bin'],
      stdin: bytes,
      network: { mode: 'none' },
      timeoutMs: 10_000,
    });
    expect(await readFile(path.join(await t.driver.ensureWorkspace(id), 'blob.bin'))).toEqual(Buffer.from(bytes));
  });

  it('rejects bad requests before anything runs', async () => {
    const id = randomUUID();
    await expect(sh('not-a-uuid', 'true')).rejects.toMatchObject({ code: 'bad_request', details: { path: 'sandboxId' } });
    await expect(sh(id, 'true', { cwd: '../..' })).rejects.toMatchObject({ details: { path: 'cwd' } });
    await expect(sh(id, 'true', { cwd: '/etc' })).rejects.toMatchObject({ details: { path: 'cwd' } });
    await expect(sh(id, 'true', { snapshot: { ...BUILT_IN_SNAPSHOT, state: 'retired' } })).rejects.toMatchObject({ details: { path: 'snapshot.state' } });
    await expect(sh(id, 'true', { snapshot: { ...BUILT_IN_SNAPSHOT, rootfs: { kind: 'directory', path: '/' } } })).rejects.toMatchObject({
      details: { path: 'snapshot.rootfs.path' },
    });
    await expect(sh(id, 'true', { network: { mode: 'restricted', allowedDomains: ['*'], allowedCidrs: [] } })).rejects.toMatchObject({
      details: { path: 'network.allowedDomains.0' },
    });
  });
});

describe('local sandbox driver: escape attempts', () => {
  it('cannot write outside /workspace, and /tmp is private and gone afterwards', async () => {
    const id = randomUUID();
    const marker = `escape-${randomUUID()}`;
    const result = await sh(
      id,
      `for target in /usr/${marker} /etc/${marker} /${marker} /dev/${marker} /proc/${marker} /workspace/../${marker}; do
         if (echo x > "$target") 2>/dev/null; then echo "wrote $target"; fi
       done
       echo private > /tmp/${marker} && echo tmp-ok`,
    );
    expect(result.stdout).toBe('tmp-ok\n');
    expect(existsSync(path.join(tmpdir(), marker))).toBe(false);
    expect(existsSync(`/usr/${marker}`) || existsSync(`/etc/${marker}`) || existsSync(`/${marker}`)).toBe(false);

    const later = await sh(id, `test -e /tmp/${marker} && echo still-there || echo gone`);
    expect(later.stdout).toBe('gone\n');
  });

  it('sees no host secrets, project files, data dir or home directories', async () => {
    const id = randomUUID();
    const probes = [
      '/etc/shadow',
      '/etc/gshadow',
      '/etc/ssh',
      '/etc/hostname',
      '/root',
      '/home',
      '/work',
      '/work/main/package.json',
      process.cwd(),
      t.dataDir,
      '/var',
      '/sys',
      '/mnt',
      '/opt',
    ];
    const result = await sh(
      id,
      `for p in ${probes.map((p) => `'${p}'`).join(' ')}; do test -e "$p" && echo "visible $p"; done; cat /etc/passwd | cut -d: -f1 | tr '\\n' ' '`,
    );
    expect(result.stdout).toBe('root sandbox nobody ');
  });

  it('sees only its own processes and cannot make nested user namespaces', async () => {
    const id = randomUUID();
    const result = await sh(
      id,
      'ls /proc | grep -E "^[0-9]+$" | sort -n | tr "\\n" " "; echo; cat /proc/*/cmdline 2>/dev/null | tr "\\0\\n" "  "; echo; unshare --user true 2>/dev/null && echo nested-userns',
    );
    const [pids, cmdlines, nested] = result.stdout.split('\n');
    expect(
      pids!
        .trim()
        .split(' ')
        .map(Number)
        .every((pid) => pid < 50),
    ).toBe(true);
    expect(cmdlines).not.toMatch(/vitest|node/);
    expect(nested).toBe('');
  });

  it('passes no inherited descriptor into the sandbox', async () => {
    const result = await sh(randomUUID(), 'ls /proc/self/fd | sort -n | tr "\\n" " "');
    // 0-2 are stdio; 3 is ls reading the directory itself.
    expect(result.stdout).toBe('0 1 2 3 ');
  });
});

describe('local sandbox driver: directory snapshots', () => {
  it('mounts a directory root read-only instead of the host /usr', async () => {
    const rootfs = await mkdtemp(path.join(tmpdir(), 'sandbox-rootfs-'));
    try {
      await buildMiniRoot(rootfs, ['/usr/bin/bash', '/usr/bin/prlimit', '/usr/bin/cat', '/usr/bin/id']);
      const snapshot = { ...BUILT_IN_SNAPSHOT, rootfs: { kind: 'directory' as const, path: rootfs } };
      const result = await t.driver.exec({
        sandboxId: randomUUID(),
        snapshot,
        argv: [
          'bash',
          '-c',
          'cat /etc/marker; id -un; [ -e /usr/bin/curl ] && echo host-usr-visible; (echo x > /etc/marker) 2>/dev/null && echo wrote-root; echo done',
        ],
        network: { mode: 'none' },
        timeoutMs: 10_000,
      });
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe('mini-root\nsandbox\ndone\n');
      expect(await readFile(path.join(rootfs, 'etc/passwd'), 'utf8')).toBe('root:x:0:0::/:/bin/bash\n');
    } finally {
      await rm(rootfs, { recursive: true, force: true });
    }
  });
});

/** A tiny merged-usr root: the given binaries, their shared libraries (per ldd), and an /etc. */
async function buildMiniRoot(root: string, binaries: string[]): Promise<void> {
  for (const dir of ['usr/bin', 'usr/lib', 'usr/lib64', 'etc', 'tmp']) await mkdir(path.join(root, dir), { recursive: true });
  for (const name of ['bin', 'lib', 'lib64']) await symlink(`usr/${name}`, path.join(root, name));
  const files = new Set(binaries);
  for (const binary of binaries) {
    for (const match of execFileSync('ldd', [binary], { encoding: 'utf8' }).matchAll(/(\/\S+)/g)) files.add(match[1]!);
  }
  for (const file of files) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await copyFile(file, path.join(root, file));
  }
  await writeFile(path.join(root, 'etc/marker'), 'mini-root\n');
  await writeFile(path.join(root, 'etc/passwd'), 'root:x:0:0::/:/bin/bash\n');
  await chmod(root, 0o755);
}
