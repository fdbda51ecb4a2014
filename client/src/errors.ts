/** The service's error envelope, as every non-2xx answer carries it. */
export type ErrorEnvelope = { error: { code: string; message: string; requestId: string; details?: Record<string, unknown> } };

/**
 * A refusal or failure answered by the service: its public `code` (spec 3 "Errors"), the HTTP
 * status, and the `requestId` to quote when asking an operator.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds the service asked to wait (`Retry-After`), for 429 and 503. */
  readonly retryAfterSeconds: number | null;
  /** The envelope's `message` alone (`message` adds the code and request id). */
  readonly envelopeMessage: string;

  constructor(input: {
    status: number;
    code: string;
    message: string;
    requestId: string | null;
    details?: Record<string, unknown>;
    retryAfterSeconds?: number | null;
  }) {
    super(input.requestId ? `${input.message} (${input.code}, request ${input.requestId})` : `${input.message} (${input.code})`);
    this.name = 'ApiError';
    this.status = input.status;
    this.code = input.code;
    this.requestId = input.requestId;
    this.details = input.details;
    this.retryAfterSeconds = input.retryAfterSeconds ?? null;
    this.envelopeMessage = input.message;
  }
}

/** `waitForRunSettled` gave up at its own deadline; the run itself goes on (it is not cancelled). */
export class RunWaitTimeoutError extends Error {
  readonly code = 'run_wait_timeout';
  readonly runId: string;
  /** The run as last seen, still unsettled. */
  readonly lastSeen: unknown;

  constructor(runId: string, timeoutMs: number, lastSeen: unknown) {
    super(`Run ${runId} did not settle within ${timeoutMs} ms; it was not cancelled`);
    this.name = 'RunWaitTimeoutError';
    this.runId = runId;
    this.lastSeen = lastSeen;
  }
}
