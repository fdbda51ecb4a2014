import * as path from 'node:path';
import type { Snapshot } from '../../domain/sandbox/snapshot-registry.ts';
import type { SandboxToolName } from '../../domain/sandbox/tools.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';
import { beginSandboxCommand, completeSandboxCommand } from '../../services/runtime/sandboxes/index.ts';
import { ensureRunSandbox, type RunSandbox } from '../../services/runtime/sandboxes/index.ts';
import type { PlatformToolAnswer } from '../platform-tools/registry.ts';
import type { SandboxBrowsers } from './browser/browser-tools.ts';
import type { ExecResult, LocalSandboxDriver } from './local/driver.ts';
import { execInTarget, networkOf, snapshotOf, type TargetExecOptions } from './run-target.ts';
import {
  memoryContents,
  readMountedStores,
  writeBackMount,
  type MountIndexCache,
  type MountedStore,
  type WriteBackReport,
} from '../../services/configuration/memory-stores/index.ts';
import { MountReadError } from './local/driver.ts';
import { oneAtATime } from './one-at-a-time.ts';

/** Cut of text kept in debug records (`safeCommand`/`safeResult`); the model gets the full tool output. */
const SAFE_TEXT = 2_000;
const DEFAULT_BASH_TIMEOUT_MS = 120_000;
const FILE_TIMEOUT_MS = 30_000;
const READ_MAX_BYTES = 256 * 1024;
const LIST_MAX_FILES = 5_000;

export type SandboxToolInput = { runId: string; toolCallId: string; toolName: string; arguments: unknown; signal: AbortSignal };

type ToolValue = Record<string, unknown>;
type ToolRun = { value: ToolValue; safeCommand: Record<string, unknown>; safeResult: Record<string, unknown>; failure?: string };

/**
 * Runs the sandbox tools (`read`, `write`, `edit`, `bash`, `grep`, `glob`, and the three browser
 * tools) for the run workflow's platform-tool step, inside the session's bubblewrap sandbox. Paths are
 * workspace-relative and may not climb out of it (the sandbox would stop them anyway). Every
 * call is recorded in `sandbox_commands` with a bounded `safeCommand`/`safeResult`; a retried
 * activity reuses a completed command's result rather than running it twice.
 */
export function createSandboxToolRunner(deps: {
  system: () => ServiceContext;
  driver: LocalSandboxDriver;
  browsers: SandboxBrowsers;
  snapshots: ReadonlyMap<string, Snapshot>;
}) {
  /** The browser tools: one Chromium per sandbox, in the same isolation and network policy. */
  const browse =
    (toolName: 'browser_navigate' | 'browser_snapshot' | 'browser_interact') =>
    async (target: RunSandbox, args: Record<string, unknown>): Promise<ToolRun> => {
      const safeCommand = {
        tool: toolName,
        ...(typeof args.url === 'string' ? { url: cut(args.url, 500) } : {}),
        ...(typeof args.action === 'string' ? { action: args.action, ref: String(args.ref ?? '') } : {}),
      };
      const result = await deps.browsers.run({
        sandboxId: target.sandbox.id,
        snapshot: snapshotOf(deps.snapshots, target),
        network: networkOf(target),
        toolName,
        args,
      });
      if (!result.ok) return { value: {}, safeCommand, safeResult: { ok: false }, failure: result.message };
      const { url, title, status } = result.value as { url?: unknown; title?: unknown; status?: unknown };
      return {
        value: result.value,
        safeCommand,
        safeResult: { ok: true, url, title: typeof title === 'string' ? cut(title, 300) : title, ...(status !== undefined ? { status } : {}) },
      };
    };

  // A call's commands see the session's memory stores when it mounted them (`mounts`).
  const exec = (target: MountedTarget, argv: string[], options: TargetExecOptions) =>
    execInTarget(deps, target, argv, { ...options, ...(target.mounts ? { memoryMounts: target.mounts } : {}) });

  const tools: Record<string, (target: MountedTarget, args: Record<string, unknown>) => Promise<ToolRun>> = {
    async read(target, args) {
      const file = workspacePath(args.path);
      const result = await exec(target, ['cat', '--', file], { timeoutMs: FILE_TIMEOUT_MS, maxOutputBytes: READ_MAX_BYTES });
      if (result.exitCode !== 0) return failed({ tool: 'read', path: file }, result, `Cannot read ${file}: ${firstLine(result.stderr)}`);
      let lines = result.stdout.split('\n');
      const offset = typeof args.offset === 'number' ? args.offset : 1;
      const limit = typeof args.limit === 'number' ? args.limit : lines.length;
      lines = lines.slice(offset - 1, offset - 1 + limit);
      const content = lines.join('\n');
      return {
        value: { path: file, content, truncated: result.stdoutTruncated },
        safeCommand: { tool: 'read', path: file },
        safeResult: { exitCode: 0, bytes: Buffer.byteLength(content), truncated: result.stdoutTruncated },
      };
    },
    async write(target, args) {
      const file = workspacePath(args.path);
      const content = String(args.content ?? '');
      const result = await exec(target, ['bash', '-c', 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', 'write', file], {
        stdin: content,
        timeoutMs: FILE_TIMEOUT_MS,
      });
      const safeCommand = { tool: 'write', path: file, bytes: Buffer.byteLength(content) };
      if (result.exitCode !== 0) return failed(safeCommand, result, `Cannot write ${file}: ${firstLine(result.stderr)}`);
      return {
        value: { path: file, bytesWritten: Buffer.byteLength(content) },
        safeCommand,
        safeResult: { exitCode: 0, bytesWritten: Buffer.byteLength(content) },
      };
    },
    async edit(target, args) {
      const file = workspacePath(args.path);
      const oldText = String(args.oldText ?? '');
      const newText = String(args.newText ?? '');
      const safeCommand = { tool: 'edit', path: file, replaceAll: args.replaceAll === true };
      const current = await exec(target, ['cat', '--', file], { timeoutMs: FILE_TIMEOUT_MS, maxOutputBytes: 10 * 1024 * 1024, stdoutEncoding: 'base64' });
      if (current.exitCode !== 0) return failed(safeCommand, current, `Cannot read ${file}: ${firstLine(current.stderr)}`);
      const text = Buffer.from(current.stdout, 'base64').toString('utf8');
      const occurrences = text.split(oldText).length - 1;
      if (occurrences === 0) return { value: {}, safeCommand, safeResult: { replaced: 0 }, failure: `oldText was not found in ${file}` };
      if (occurrences > 1 && args.replaceAll !== true)
        return {
          value: {},
          safeCommand,
          safeResult: { replaced: 0, occurrences },
          failure: `oldText occurs ${occurrences} times in ${file}; make it unique or set replaceAll`,
        };
      const next = args.replaceAll === true ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
      const written = await exec(target, ['bash', '-c', 'cat > "$1"', 'edit', file], { stdin: next, timeoutMs: FILE_TIMEOUT_MS });
      if (written.exitCode !== 0) return failed(safeCommand, written, `Cannot write ${file}: ${firstLine(written.stderr)}`);
      const replaced = args.replaceAll === true ? occurrences : 1;
      return { value: { path: file, replaced }, safeCommand, safeResult: { exitCode: 0, replaced } };
    },
    async bash(target, args) {
      const command = String(args.command ?? '');
      const timeoutMs = typeof args.timeoutMs === 'number' ? args.timeoutMs : DEFAULT_BASH_TIMEOUT_MS;
      const result = await exec(target, ['bash', '-c', command], { timeoutMs });
      const value = {
        exitCode: result.exitCode,
        stdout: result.stdout,
        stderr: result.stderr,
        truncated: result.stdoutTruncated || result.stderrTruncated,
        timedOut: result.timedOut,
        // The agent can recover by deleting files; the limit itself never moves.
        ...(result.workspaceFullMb !== null
          ? {
              note: `The workspace is full: its disk limit is ${result.workspaceFullMb} MiB. Delete files you no longer need to free space, then run the command again.`,
            }
          : {}),
      };
      return { value, safeCommand: { tool: 'bash', command: cut(command) }, safeResult: safeProcessResult(result) };
    },
    async grep(target, args) {
      const pattern = String(args.pattern ?? '');
      const where = args.path === undefined ? '.' : workspacePath(args.path);
      const argv = ['grep', '-rnE', '--binary-files=without-match', ...(args.ignoreCase === true ? ['-i'] : []), '--', pattern, where];
      const result = await exec(target, argv, { timeoutMs: FILE_TIMEOUT_MS });
      const safeCommand = { tool: 'grep', pattern: cut(pattern), path: where };
      if (result.exitCode !== 0 && result.exitCode !== 1) return failed(safeCommand, result, `grep failed: ${firstLine(result.stderr)}`);
      const matches = result.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.replace(/^\.\//, ''));
      return {
        value: { matches, truncated: result.stdoutTruncated },
        safeCommand,
        safeResult: { exitCode: result.exitCode, matches: matches.length, truncated: result.stdoutTruncated },
      };
    },
    async glob(target, args) {
      const pattern = String(args.pattern ?? '');
      const result = await exec(target, ['bash', '-c', `find . -path ./.svc -prune -o -type f -print | head -n ${LIST_MAX_FILES}`], {
        timeoutMs: FILE_TIMEOUT_MS,
        maxOutputBytes: 1024 * 1024,
      });
      const safeCommand = { tool: 'glob', pattern: cut(pattern) };
      if (result.exitCode !== 0) return failed(safeCommand, result, `Cannot list files: ${firstLine(result.stderr)}`);
      const files = result.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.replace(/^\.\//, ''))
        .filter((file) => path.matchesGlob(file, pattern))
        .sort();
      return { value: { files }, safeCommand, safeResult: { exitCode: 0, files: files.length } };
    },
    browser_navigate: browse('browser_navigate'),
    browser_snapshot: browse('browser_snapshot'),
    browser_interact: browse('browser_interact'),
  };

  const diskOf = (target: RunSandbox) => snapshotOf(deps.snapshots, target).resource.diskMb;
  // Per sandbox, the stores' paths and hashes as last read (the driver keeps the files to match).
  const mountIndexes = new Map<string, MountIndexCache>();
  const inWorkspaceTurn = oneAtATime();

  /** Writes each attached store's memories into its mount directory, fresh for this command. */
  async function mountMemory(target: RunSandbox): Promise<{ stores: MountedStore[]; mounts: MemoryMounts }> {
    let index = mountIndexes.get(target.sandbox.id);
    if (!index) mountIndexes.set(target.sandbox.id, (index = new Map()));
    const stores = await readMountedStores(deps.system(), target.run, target.memoryStores, index);
    for (const mounted of stores) {
      const wanted = [...mounted.mounted].map(([path, { sha }]) => ({ path, sha256: sha }));
      await deps.driver.syncMemoryMount(target.sandbox.id, diskOf(target), mounted.store.mount, wanted, async (paths) => {
        const contents = await memoryContents(deps.system(), target.run, mounted.store.storeId, paths);
        return new Map([...contents].map(([path, text]) => [path, Buffer.from(text, 'utf8')]));
      });
    }
    return { stores, mounts: stores.map((mounted) => ({ name: mounted.store.mount, readOnly: mounted.store.access === 'read_only' })) };
  }

  /** What the command changed in the read-write mounts, written back as versions by the run. */
  async function writeBack(target: RunSandbox, toolCallId: string, stores: MountedStore[]): Promise<WriteBackReport> {
    const report: WriteBackReport = { written: [], problems: [] };
    const author = { type: 'session' as const, sessionId: target.run.sessionId, runId: target.run.id };
    for (const mounted of stores) {
      if (mounted.store.access === 'read_only') continue;
      let after;
      try {
        after = await deps.driver.readMemoryMount(target.sandbox.id, diskOf(target), mounted.store.mount);
      } catch (error) {
        if (!(error instanceof MountReadError)) throw error;
        report.problems.push(`${mounted.store.mount}: nothing was written: ${error.message}`);
        continue;
      }
      const one = await writeBackMount(deps.system(), { scope: target.run, author, toolCallId, mounted, after, cache: mountIndexes.get(target.sandbox.id) });
      report.written.push(...one.written);
      report.problems.push(...one.problems);
    }
    return report;
  }

  return {
    handles: (toolName: string) => Object.hasOwn(tools, toolName),

    async run(input: SandboxToolInput): Promise<PlatformToolAnswer> {
      const ctx = deps.system();
      const target = await ensureRunSandbox({ ctx, input: { runId: input.runId } });
      if (!target) return { status: 'failure', message: 'This agent version has no sandbox.' };
      const args = (input.arguments ?? {}) as Record<string, unknown>;
      const tool = tools[input.toolName as SandboxToolName]!;
      let safeCommandGuess: Record<string, unknown> = { tool: input.toolName };
      try {
        safeCommandGuess = { tool: input.toolName, ...(typeof args.path === 'string' ? { path: workspacePath(args.path) } : {}) };
      } catch (error) {
        return { status: 'failure', message: (error as Error).message };
      }
      // One command at a time per workspace: the children of a fan-out share their coordinator's
      // (docs/decisions/parallel-delegation.md); a command's mount, run and write-back are one piece.
      return inWorkspaceTurn(target.sandbox.id, async () => {
        const recorded = await beginSandboxCommand({
          ctx,
          input: { sandbox: target.sandbox, runId: input.runId, toolCallId: input.toolCallId, toolName: input.toolName, safeCommand: safeCommandGuess },
        });
        // A retried step whose command finished: its side effects happened once; reuse the answer
        // (browser state is best effort, so those steps simply run again).
        if (recorded.completedAt && (recorded.failure !== null || recorded.resultValue !== null)) {
          return recorded.failure !== null ? { status: 'failure', message: recorded.failure } : { status: 'success', value: recorded.resultValue };
        }
        // A command (bash, or a file tool) sees the session's memory stores at /mnt/memory/<store>/;
        // what it changed there is written back before the command is recorded as done, so a step
        // retried after a crash mounts the stores afresh and writes each file once
        // (docs/decisions/memory-in-sessions.md). The browser does not see them.
        const memory = !input.toolName.startsWith('browser_') && target.memoryStores.length > 0 ? await mountMemory(target) : null;
        let run = await tool(memory ? { ...target, mounts: memory.mounts } : target, args);
        if (memory) run = withMemoryReport(run, await writeBack(target, input.toolCallId, memory.stores));
        await completeSandboxCommand({
          ctx,
          input: {
            toolCallId: input.toolCallId,
            safeCommand: run.safeCommand,
            safeResult: run.safeResult,
            // Reads are repeatable, so their content is not kept.
            resultValue: run.failure || input.toolName === 'read' || input.toolName.startsWith('browser_') ? null : run.value,
            failure: run.failure ?? null,
          },
        });
        return run.failure ? { status: 'failure', message: run.failure } : { status: 'success', value: run.value };
      });
    },
  };
}

export type SandboxToolRunner = ReturnType<typeof createSandboxToolRunner>;

type MemoryMounts = Array<{ name: string; readOnly: boolean }>;
type MountedTarget = RunSandbox & { mounts?: MemoryMounts };
const MEMORY_ROOT = '/mnt/memory/';

/**
 * A workspace-relative path, normalized, or a path under the memory mounts (`/mnt/memory/...`)
 * as it is; other absolute paths and `..` that leave the workspace are refused.
 */
export function workspacePath(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new Error('path must be a non-empty workspace-relative path');
  if (raw.startsWith(MEMORY_ROOT)) {
    const memoryPath = path.posix.normalize(raw);
    if (memoryPath.startsWith(MEMORY_ROOT) && memoryPath.length > MEMORY_ROOT.length) return memoryPath;
  }
  const normalized = path.posix.normalize(raw.replace(/^\/workspace\//, ''));
  if (path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')) {
    throw new Error(`path "${cut(raw, 200)}" is outside the workspace; use a path relative to it`);
  }
  return normalized;
}

/** The command's answer with what it wrote to memory, and the conflicts the agent must resolve. */
function withMemoryReport(run: ToolRun, report: WriteBackReport): ToolRun {
  if (report.written.length === 0 && report.problems.length === 0) return run;
  const memory = {
    written: report.written.map(({ store, path, operation, versionId }) => ({ store, path, operation, versionId })),
    ...(report.problems.length > 0 ? { notWritten: report.problems } : {}),
  };
  return {
    ...run,
    value: { ...run.value, memory },
    safeResult: { ...run.safeResult, memoryWritten: report.written.length, memoryNotWritten: report.problems.length },
  };
}

function failed(safeCommand: Record<string, unknown>, result: ExecResult, message: string): ToolRun {
  return { value: {}, safeCommand, safeResult: safeProcessResult(result), failure: message };
}

function safeProcessResult(result: ExecResult): Record<string, unknown> {
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    stdout: cut(result.stdout),
    stderr: cut(result.stderr),
    truncated: result.stdoutTruncated || result.stderrTruncated,
  };
}

const cut = (text: string, max = SAFE_TEXT) => (text.length > max ? `${text.slice(0, max)}…` : text);
const firstLine = (text: string) => cut(text.split('\n').find((line) => line.trim() !== '') ?? 'unknown error', 300);
