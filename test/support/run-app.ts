import { expect } from 'vitest';
import type { PlatformToolHandler } from '../../activities/platform-tools/registry.ts';
import type { Clock } from '../../services/kernel/service-context.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { createTestApp, type TestApp } from './app.ts';
import { deferredRunStarter, deferredScheduleBackend, startTestRuntime } from './runtime.ts';

type TestRuntime = Awaited<ReturnType<typeof startTestRuntime>>;

const SETTLED = ['completed', 'failed', 'cancelled', 'timed_out'];

export type RunAppOptions = {
  clock?: Clock;
  platformTools?: Record<string, PlatformToolHandler>;
  env?: Record<string, string>;
  /** `later`: no worker until `startRuntime()` (runs stay queued until then). Default `now`. */
  runtime?: 'now' | 'later';
  /** false: no `openai` provider and `fast` preset (a fresh installation, e.g. to restore into). Default true. */
  seed?: boolean;
};

/**
 * An app with a real worker, the fake vendors, and a vendor_a preset `fast`: what end-to-end
 * run tests share. `call` talks to the project's API with an admin key; `waitForRun` polls a
 * run until it settles (or `predicate` holds).
 */
export async function startRunApp(options: RunAppOptions = {}) {
  const fakes: FakeModelServers = await startFakeModelServers();
  const starter = deferredRunStarter();
  const scheduleBackend = deferredScheduleBackend();
  const t: TestApp = await createTestApp({
    env: { ...fakes.env, ...options.env },
    runStarter: starter,
    scheduleBackend,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  let runtime: TestRuntime | null = null;
  const startRuntime = async () => {
    runtime ??= await startTestRuntime(t, starter, { platformTools: options.platformTools ?? {}, scheduleBackend });
    return runtime;
  };
  if (options.runtime !== 'later') await startRuntime();
  const projectId: string = (await t.login()).context.project.id;
  const project = `/v1/projects/${projectId}`;
  const apiKey = (await t.createApiKey(['*'])).secret;
  const call = async (method: string, path: string, body?: unknown, requestOptions: { apiKey?: string } = {}) => {
    const response = await t.request(method, `${project}${path}`, { apiKey: requestOptions.apiKey ?? apiKey, body });
    return { status: response.status, body: await response.json() };
  };
  if (options.seed !== false) {
    const provider = await call('POST', '/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a });
    expect(provider.status).toBe(201);
    expect(
      (await call('POST', '/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.body.id, model: 'vendor_a/gpt-5.1', routing: {} })).status,
    ).toBe(201);
  }

  const waitForRun = async (runId: string, predicate: (run: any) => boolean = (run) => SETTLED.includes(run.state), timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await call('GET', `/runs/${runId}`);
      if (predicate(run.body)) return run.body;
      if (SETTLED.includes(run.body.state))
        throw new Error(`run ${runId} settled ${run.body.state} (${JSON.stringify(run.body.failure)}) before the awaited state`);
      if (Date.now() > deadline) throw new Error(`run ${runId} stuck in ${run.body.state}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  return {
    t,
    fakes,
    /** The in-process worker (null until `startRuntime()` with `runtime: 'later'`). */
    get runtime(): TestRuntime {
      if (!runtime) throw new Error('the runtime has not been started');
      return runtime;
    },
    startRuntime,
    starter,
    projectId,
    apiKey,
    call,
    waitForRun,
    async close() {
      await runtime?.shutdown();
      await t.close();
      await fakes.close();
    },
  };
}
