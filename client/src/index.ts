import type { Paths, PublicRun, ToolCallClaim } from './api-types.ts';
import { RunWaitTimeoutError } from './errors.ts';
import { followEvents, followSession, type FollowOptions, type SessionFollowOptions } from './event-feed.ts';
import { paginate, type Page } from './pages.ts';
import { Transport, type CallOptions, type ClientOptions, type Query } from './transport.ts';

export { ApiError, RunWaitTimeoutError } from './errors.ts';
export type { FeedFrame, ProductEvent, FollowOptions, MessageDelta, MessageDeltaReset, SessionFrame, SessionFollowOptions } from './event-feed.ts';
export { LiveText } from './event-feed.ts';
export type { Page } from './pages.ts';
export type { ClientOptions, CallOptions } from './transport.ts';
export type * from './api-types.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof Paths, M extends keyof Paths[P]> = Paths[P][M];
/** The success body of an operation (the union over its documented success statuses). */
export type SuccessBody<O> = O extends { responses: infer R } ? R[keyof R] : never;
/** What a typed call takes: path parameters (`projectId` defaults to the client's project), query, body. */
export type TypedCall<O> = (O extends { path: infer P } ? { path?: Partial<P> } : { path?: undefined }) &
  (O extends { query?: infer Q } ? { query?: Q } : { query?: undefined }) &
  (O extends { body: infer B } ? { body: B } : O extends { body?: infer B } ? { body?: B } : { body?: undefined }) &
  Pick<CallOptions, 'idempotencyKey' | 'signal'>;

/** The item type of a project list route (`/agents` → `PublicAgent`); `unknown` for a path the document does not list. */
export type ListItem<P extends string> = `/v1/projects/{projectId}${P}` extends infer Full extends keyof Paths
  ? Paths[Full] extends { get: { responses: { 200: { data: Array<infer Item> } } } }
    ? Item
    : unknown
  : unknown;

/** Run states after which a run changes no more (spec 1 "Run states"). */
export const SETTLED_RUN_STATES = ['completed', 'failed', 'cancelled', 'timed_out'] as const;
/** A run as the service's document describes it (generated types). */
export type Run = PublicRun;
/** A caller tool call as its claim answers it: the arguments to run the tool with and the `fence`. */
export type ClaimedToolCall = ToolCallClaim;
/** Runs one caller tool; `signal` aborts when the lease is lost (renewal refused). */
export type ToolHandler = (call: ClaimedToolCall, context: { signal: AbortSignal }) => Promise<unknown>;

export type ProjectClientOptions = ClientOptions & {
  /** The project to act in; by default the principal's own (from `GET /context`). */
  projectId?: string;
};

/**
 * A client of one project of the service. `request` reaches any route; the helpers cover what
 * integrations do most: paging, following the event feed, waiting for a run to settle.
 */
export class ProjectClient {
  readonly transport: Transport;
  private projectIdValue: Promise<string> | null;

  constructor(options: ProjectClientOptions) {
    this.transport = new Transport(options);
    this.projectIdValue = options.projectId ? Promise.resolve(options.projectId) : null;
  }

  /** The project this client acts in. */
  projectId(): Promise<string> {
    this.projectIdValue ??= this.transport.json<{ project: { id: string } }>('GET', '/context').then((context) => context.project.id);
    return this.projectIdValue;
  }

  /** A call to a route of the project: `path` is relative to `/v1/projects/{projectId}`. */
  async request<T>(method: string, path: string, options?: CallOptions): Promise<T> {
    return this.transport.json<T>(method, `/projects/${await this.projectId()}${path}`, options);
  }

  /**
   * A call typed by the service's OpenAPI document (client/src/api-types.ts): the path is the
   * document's (`/v1/projects/{projectId}/runs/{runId}`), its parameters come from `path`, and
   * the answer has the documented type.
   */
  async call<P extends keyof Paths, M extends keyof Paths[P] & Method>(
    method: M,
    path: P,
    args: TypedCall<Operation<P, M>>,
  ): Promise<SuccessBody<Operation<P, M>>> {
    const values: Record<string, string | undefined> = { ...(args.path as Record<string, string> | undefined) };
    if (path.includes('{projectId}') && values.projectId === undefined) values.projectId = await this.projectId();
    const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined) throw new TypeError(`${path} needs the path parameter ${name}`);
      return encodeURIComponent(value);
    });
    return this.transport.json(method.toUpperCase(), concrete.replace(/^\/v1/, ''), {
      query: args.query as Query | undefined,
      body: args.body,
      idempotencyKey: args.idempotencyKey,
      signal: args.signal,
    });
  }

  /** Every item of a list route of the project (`/agents`), page after page, typed by the document. */
  list<P extends string>(path: P, query: Query = {}): AsyncGenerator<ListItem<P>> {
    return paginate<ListItem<P>>((cursor) => this.request<Page<ListItem<P>>>('GET', path, { query: { ...query, ...(cursor ? { cursor } : {}) } }));
  }

  /** The project's event feed, resumed after a dropped connection without gaps or repeats. */
  async *events(options: FollowOptions = {}) {
    yield* followEvents(this.transport, await this.projectId(), options);
  }

  /**
   * One session's stream: its durable events (resumed like `events`) and, with `deltas: true`,
   * the model's text as it is written (`message.delta`, `message.delta_reset`; assemble with `LiveText`).
   */
  async *sessionEvents(sessionId: string, options: SessionFollowOptions = {}) {
    yield* followSession(this.transport, await this.projectId(), sessionId, options);
  }

  getRun(runId: string, options?: CallOptions): Promise<Run> {
    return this.request<Run>('GET', `/runs/${runId}`, options);
  }

  /**
   * Resolves with the run once it is settled. Follows the event feed from now (no polling loop):
   * the run is read once the feed is open (so a settlement in between is not missed) and again
   * whenever an event of the run arrives. At `timeoutMs` it throws `RunWaitTimeoutError`
   * (`run_wait_timeout`) and leaves the run running: waiting never cancels anything.
   */
  async waitForRunSettled(runId: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<Run> {
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const done = new AbortController();
    const signal = AbortSignal.any([deadline, done.signal, ...(options.signal ? [options.signal] : [])]);
    const settled = (run: Run) => (SETTLED_RUN_STATES as readonly string[]).includes(run.state);
    let lastSeen: Run | null = null;
    const read = async () => {
      lastSeen = await this.getRun(runId, { signal });
      if (settled(lastSeen)) done.abort();
    };
    try {
      await read();
      // On every (re)connection the run is read afresh, so a settlement while the feed was
      // closed is seen too; after that, only events of this run prompt a read.
      for await (const frame of this.events({ from: 'now', signal, onConnect: read })) {
        if (frame.event.aggregateId === runId) await read();
      }
      throw new Error('the event feed ended');
    } catch (error) {
      if (done.signal.aborted && lastSeen) return lastSeen;
      if (deadline.aborted) throw new RunWaitTimeoutError(runId, options.timeoutMs, lastSeen);
      throw error;
    }
  }
}

/** The lease is renewed this often while a handler runs: well inside the service's 5-minute lease. */
const DEFAULT_RENEW_EVERY_MS = 60_000;

/**
 * Caller-tool work (spec 2 "Tool calls and approvals"): claim the call, renew its lease while
 * the handler runs, submit the handler's value with the fence (once: retries reuse the
 * submission's Idempotency-Key), and release the claim when the handler fails so another worker
 * can take it. A refused renewal (the lease was lost) aborts the handler's signal.
 */
export async function runToolCall(client: ProjectClient, toolCallId: string, handler: ToolHandler, options: { renewEveryMs?: number } = {}): Promise<unknown> {
  const claimed = await client.request<ClaimedToolCall>('POST', `/tool-calls/${toolCallId}/claim`, { body: {} });
  const lease = new AbortController();
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = client.request('POST', `/tool-calls/${toolCallId}/renew`, { body: { fence: claimed.fence } }).catch((error: unknown) => lease.abort(error));
  }, options.renewEveryMs ?? DEFAULT_RENEW_EVERY_MS);
  let value: unknown;
  try {
    value = await handler(claimed, { signal: lease.signal });
    clearInterval(timer);
    await renewing;
    if (lease.signal.aborted) throw lease.signal.reason;
  } catch (error) {
    clearInterval(timer);
    if (!lease.signal.aborted) await client.request('POST', `/tool-calls/${toolCallId}/release`, { body: { fence: claimed.fence } }).catch(() => undefined);
    throw error;
  }
  return client.request('POST', `/tool-calls/${toolCallId}/result`, { body: { fence: claimed.fence, safeResult: { version: 1, status: 'success', value } } });
}

/**
 * One sweep of the project's pending caller work: every pending tool call with a handler in
 * `handlers` (by tool name) is run with `runToolCall`, one after another. Returns how many ran.
 */
export async function workPendingToolCalls(
  client: ProjectClient,
  handlers: Record<string, ToolHandler>,
  options: { renewEveryMs?: number } = {},
): Promise<number> {
  const pending = await client.request<{ toolCalls: Array<{ id: string; toolName: string; status: string }> }>('GET', '/pending-work');
  let ran = 0;
  for (const call of pending.toolCalls) {
    const handler = handlers[call.toolName];
    if (!handler || call.status !== 'pending') continue;
    await runToolCall(client, call.id, handler, options);
    ran += 1;
  }
  return ran;
}

export function createClient(options: ProjectClientOptions): ProjectClient {
  return new ProjectClient(options);
}
