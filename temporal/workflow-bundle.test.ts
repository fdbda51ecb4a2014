import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkflowBundle } from './workflow-bundle.ts';

const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the workflow bundle cache', () => {
  let dir: string;
  beforeAll(async () => {
    // Inside the project, so the workflow's imports resolve from its node_modules.
    dir = await mkdtemp(path.join(projectRoot, '.test-data', 'workflow-bundle-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reuses the bundle until a file it was built from changes', async () => {
    const workflowsPath = path.join(dir, 'workflows.ts');
    const helper = path.join(dir, 'greeting.ts');
    await writeFile(helper, "export const greeting = 'hello';\n");
    await writeFile(
      workflowsPath,
      "import { sleep } from '@temporalio/workflow';\nimport { greeting } from './greeting.ts';\nexport async function greet(): Promise<string> { await sleep(1); return greeting; }\n",
    );
    const cacheFile = path.join(dir, 'cache', 'bundle.json');

    const first = await loadWorkflowBundle({ workflowsPath, logger: silent, cacheFile });
    expect(first.fromCache).toBe(false);
    expect(first.code).toContain("'hello'");

    const second = await loadWorkflowBundle({ workflowsPath, logger: silent, cacheFile });
    expect(second).toEqual({ code: first.code, fromCache: true });

    // A module the entry imports changed: bundled again, with the new code.
    await writeFile(helper, "export const greeting = 'bonjour';\n");
    const third = await loadWorkflowBundle({ workflowsPath, logger: silent, cacheFile });
    expect(third.fromCache).toBe(false);
    expect(third.code).toContain("'bonjour'");
    expect(third.code).not.toContain("'hello'");
    expect((await loadWorkflowBundle({ workflowsPath, logger: silent, cacheFile })).fromCache).toBe(true);
  });

  it('bundles every time where the cache cannot be written', async () => {
    const workflowsPath = path.join(dir, 'plain.ts');
    await writeFile(workflowsPath, 'export async function plain(): Promise<number> { return 1; }\n');
    // A file where the cache directory should be: the write fails, the bundle is still served.
    const blocker = path.join(dir, 'blocker');
    await writeFile(blocker, '');
    const cacheFile = path.join(blocker, 'bundle.json');
    expect((await loadWorkflowBundle({ workflowsPath, logger: silent, cacheFile })).fromCache).toBe(false);
    expect((await loadWorkflowBundle({ workflowsPath, logger: silent, cacheFile })).fromCache).toBe(false);
  });
});
