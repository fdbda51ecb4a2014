import { ApiError, type ErrorEnvelope } from './errors.ts';
import { sleep } from './sleep.ts';

export type ClientOptions = {
  /** The service's origin, e.g. `http://localhost:8080` (`/v1` is added). */
  baseUrl: string;
  /** An API key (`svc_...`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Or a browser session: the `Cookie` header value; mutations then send `origin`. */
  cookie?: string;
  origin?: string;
  /** Attempts per request, retries included (default 4). */
  maxAttempts?: number;
  /** First retry delay; it doubles per attempt up to 5 s unless the service sends `Retry-After` (default 250 ms). */
  retryDelayMs?: number;
  fetch?: typeof fetch;
};

export type Query = Record<string, string | number | boolean | undefined | null>;
export type CallOptions = {
  query?: Query;
  body?: unknown;
  /** For a mutation: the key the service deduplicates by; a fresh one is generated otherwise. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_DELAY_MS = 5_000;

/**
 * The HTTP layer: credentials, an `Idempotency-Key` on every mutation (generated once per call,
 * so every retry of that call carries the same key and the service applies it at most once),
 * retries of network failures and of 429/5xx answers (after `Retry-After` when given), and
 * error envelopes turned into `ApiError`.
 */
export class Transport {
  readonly options: Required<Pick<ClientOptions, 'maxAttempts' | 'retryDelayMs'>> & ClientOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions) {
    this.options = { maxAttempts: 4, retryDelayMs: 250, ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
    // Bound: a browser's fetch called as a method of another object throws ("Illegal invocation").
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** A JSON call: the parsed answer, or an `ApiError`. */
  async json<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = await response.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * One call with retries; resolves with a successful (2xx/3xx) response whose body is unread
   * (streams and downloads), else throws the `ApiError` of the last answer.
   */
  async send(method: string, path: string, options: CallOptions = {}): Promise<Response> {
    const upper = method.toUpperCase();
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (this.options.cookie) headers.cookie = this.options.cookie;
    if (MUTATIONS.has(upper)) {
      headers['idempotency-key'] = options.idempotencyKey ?? crypto.randomUUID();
      if (this.options.cookie && this.options.origin) headers.origin = this.options.origin;
    }
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const url = this.url(path, options.query);
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetchImpl(url, { method: upper, headers, body, signal: options.signal, redirect: 'manual' });
      } catch (error) {
        // A dropped connection: the same request (same key) again, unless the caller gave up.
        if (options.signal?.aborted || attempt >= this.options.maxAttempts) throw error;
        await sleep(this.backoff(attempt), options.signal);
        continue;
      }
      if (response.status < 400) return response;
      const failure = await this.errorOf(response);
      const retryable = response.status === 429 || response.status >= 500;
      if (!retryable || attempt >= this.options.maxAttempts) throw failure;
      await sleep(failure.retryAfterSeconds !== null ? failure.retryAfterSeconds * 1000 : this.backoff(attempt), options.signal);
    }
  }

  url(path: string, query?: Query): string {
    const url = new URL(`${this.options.baseUrl}/v1${path}`);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    return url.toString();
  }

  private async errorOf(response: Response): Promise<ApiError> {
    const text = await response.text().catch(() => '');
    const retryAfter = Number(response.headers.get('retry-after'));
    const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 && response.headers.has('retry-after') ? retryAfter : null;
    try {
      const { error } = JSON.parse(text) as ErrorEnvelope;
      return new ApiError({
        status: response.status,
        code: error.code,
        message: error.message,
        requestId: error.requestId,
        details: error.details,
        retryAfterSeconds,
      });
    } catch {
      return new ApiError({
        status: response.status,
        code: 'http_error',
        message: `HTTP ${response.status}`,
        requestId: response.headers.get('x-request-id'),
        retryAfterSeconds,
      });
    }
  }

  private backoff(attempt: number): number {
    return Math.min(MAX_DELAY_MS, this.options.retryDelayMs * 2 ** (attempt - 1));
  }
}
