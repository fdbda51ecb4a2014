import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLogger, type Logger } from '../../config/logger.ts';
import { parseSettings, type Settings } from '../../config/settings.ts';
import { createApp } from '../../api/app.ts';
import { isMutation } from '../../api/mutations.ts';
import { createAppDeps } from '../../scripts/app-deps.ts';
import type { AppDeps } from '../../api/deps.ts';
import { systemClock, type Clock } from '../../services/kernel/service-context.ts';
import type { RunStarter } from '../../services/kernel/run-starter.ts';
import type { ScheduleBackend } from '../../services/kernel/schedule-backend.ts';
import type { RunWakeSignal } from '../../domain/runs/workflow.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export const TEST_ORIGIN = 'http://localhost:8080';

export type RequestOptions = {
  body?: unknown;
  rawBody?: string;
  apiKey?: string;
  cookie?: string;
  origin?: string | null;
  idempotencyKey?: string | null;
  headers?: Record<string, string | undefined>;
};

/** A Response whose JSON is loosely typed: tests assert on the shape themselves. */
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export type TestApp = {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  database: TestDatabase;
  logLines: string[];
  /** In-process request; mutations get a fresh Idempotency-Key unless one is given. */
  request: (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>;
  /** A development cookie session (`svc_session=...`). */
  login(): Promise<{ cookie: string; context: any }>;
  /** An API key issued by the development owner with the given scopes. */
  createApiKey(scopes: string[], name?: string): Promise<{ secret: string; id: string }>;
  /** Every call the app made to its run starter, in order (see `RecordingRunStarter`). */
  runStarter: RecordingRunStarter;
  /** From now on, keeps every response body `request` returns (for "no secret ever appeared" checks). */
  recordResponseTexts(): string[];
  close(): Promise<void>;
};

type StartCall = Parameters<RunStarter['start']>[0];

/**
 * A test double of the runtime boundary (Temporal): records each `start` and
 * `requestCancellation` call, lets a test observe the moment of a call with `onStart`, then
 * hands the call to `inner` when one is given (a real starter).
 */
export type RecordingRunStarter = RunStarter & {
  starts: StartCall[];
  cancellations: string[];
  notifications: Array<{ runId: string; signal: RunWakeSignal }>;
  onStart: ((run: StartCall) => Promise<void>) | null;
};

export function createRecordingRunStarter(inner?: RunStarter): RecordingRunStarter {
  const recorder: RecordingRunStarter = {
    starts: [],
    cancellations: [],
    notifications: [],
    onStart: null,
    async start(run) {
      recorder.starts.push(run);
      await recorder.onStart?.(run);
      await inner?.start(run);
    },
    async requestCancellation(runId) {
      recorder.cancellations.push(runId);
      await inner?.requestCancellation(runId);
    },
    async notify(runId, signal) {
      recorder.notifications.push({ runId, signal });
      await inner?.notify(runId, signal);
    },
  };
  return recorder;
}

/**
 * The real app over a fresh migrated database, in process (`app.request`). Settings come from
 * the same parser the server uses; logs are captured so tests can check what was written.
 */
export async function createTestApp(
  options: { clock?: Clock; env?: Record<string, string>; runStarter?: RunStarter; scheduleBackend?: ScheduleBackend } = {},
): Promise<TestApp> {
  const database = await createTestDatabase({ maxConnections: 24 });
  const settings: Settings = parseSettings({
    SVC_DATA_DIR: path.join(os.tmpdir(), `svc-test-${randomBytes(4).toString('hex')}`),
    SVC_LOG_LEVEL: 'info',
    // Every JSON success answer is checked against its route's documented shape (api/openapi/route-doc.ts).
    SVC_CHECK_RESPONSES: 'true',
    ...options.env,
  });
  const logLines: string[] = [];
  const logger: Logger = createLogger({ level: 'info', sink: (line) => logLines.push(line) });
  // Calls are always recorded; a given starter (e.g. the Temporal one) still receives them.
  const runStarter = createRecordingRunStarter(options.runStarter);
  const deps = await createAppDeps({
    settings,
    logger,
    database,
    clock: options.clock ?? systemClock,
    runStarter,
    ...(options.scheduleBackend ? { scheduleBackend: options.scheduleBackend } : {}),
  });
  const app = createApp(deps);

  const request: TestApp['request'] = async (method, requestPath, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [name, value] of Object.entries(opts.headers ?? {})) if (value !== undefined) headers[name] = value;
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.origin !== null && (opts.origin !== undefined || opts.cookie)) headers.origin = opts.origin ?? settings.appOrigin;
    const mutation = isMutation(method);
    if (mutation && opts.idempotencyKey !== null) headers['idempotency-key'] = opts.idempotencyKey ?? randomBytes(8).toString('hex');
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
    }
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    return app.request(requestPath, { method, headers, body });
  };

  const login: TestApp['login'] = async () => {
    const response = await request('POST', '/v1/auth/development/login', { origin: settings.appOrigin });
    if (response.status !== 200) throw new Error(`development login failed: ${response.status} ${await response.text()}`);
    const setCookie = response.headers.get('set-cookie') ?? '';
    const cookie = setCookie.split(';')[0]!;
    const { context } = (await response.json()) as { context: unknown };
    return { cookie, context };
  };

  const createApiKey: TestApp['createApiKey'] = async (scopes, name = 'test key') => {
    const { cookie, context } = await login();
    const response = await request('POST', `/v1/projects/${context.project.id}/api-keys`, { cookie, body: { name, scopes } });
    if (response.status !== 201) throw new Error(`api key creation failed: ${response.status} ${await response.text()}`);
    const created = (await response.json()) as { secret: string; id: string };
    return { secret: created.secret, id: created.id };
  };

  const testApp: TestApp = {
    app,
    deps,
    database,
    logLines,
    request,
    login,
    createApiKey,
    runStarter,
    recordResponseTexts() {
      const texts: string[] = [];
      const inner = testApp.request;
      testApp.request = async (...args) => {
        const response = await inner(...args);
        texts.push(await response.clone().text());
        return response;
      };
      return texts;
    },
    async close() {
      await deps.eventTail.stop();
      await deps.messageDeltas.stop();
      await database.drop();
    },
  };
  return testApp;
}

/** A clock tests can move forward. */
export function manualClock(start = new Date('2026-01-01T00:00:00.000Z')) {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}
