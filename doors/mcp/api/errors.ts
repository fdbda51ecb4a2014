import type { Context } from 'hono';
import { DomainError, RateLimitedError, ServiceUnavailableError, type ErrorCode } from '../../../domain/errors.ts';
import type { AppEnv } from '../../../api/env.ts';
import { countRateLimited, domainErrorOf, safeError, statusForCode } from '../../../api/errors.ts';

/**
 * JSON-RPC error codes of the door's refusals: the specification's own where one fits (invalid
 * params, internal error), else the implementation range (-32000 to -32099), numbered after the
 * HTTP status (-32001 unauthenticated, -32003 forbidden, -32004 not found…). `data.code` carries
 * the service's own error code, as the native API's envelope does.
 */
export function rpcCodeOf(code: ErrorCode): number {
  switch (code) {
    case 'bad_request':
      return -32602;
    case 'unauthenticated':
      return -32001;
    case 'forbidden':
      return -32003;
    case 'not_found':
      return -32004;
    case 'conflict':
    case 'idempotency_conflict':
      return -32009;
    case 'cursor_expired':
      return -32010;
    case 'rate_limited':
      return -32029;
    case 'service_unavailable':
      return -32053;
    case 'internal_error':
      return -32603;
  }
}

/** An error the MCP SDK answers a request with as it is: its `code`, `message` and `data` (see `rpcErrorOf`). */
export class RpcError extends Error {
  readonly code: number;
  readonly data: Record<string, unknown>;
  constructor(code: number, message: string, data: Record<string, unknown>) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }
}

/**
 * Any error thrown inside a JSON-RPC handler, as the error the client receives: a domain error
 * with its safe message, anything else logged and answered as a generic internal error (the SDK
 * would echo `err.message`).
 */
export function rpcErrorOf(error: unknown, c: Context<AppEnv>): RpcError {
  if (error instanceof RpcError) return error;
  const domain = domainErrorOf(error instanceof Error ? error : new Error(String(error)), c);
  const safe = safeError(domain.message, domain.details);
  return new RpcError(rpcCodeOf(domain.code), safe.message, {
    code: domain.code,
    requestId: c.get('requestId'),
    ...(safe.details ? { details: safe.details } : {}),
  });
}

/** A refusal before any JSON-RPC message is read (auth, limits, switches): its HTTP status and a JSON-RPC error body, `id` null. */
export function renderRpcError(c: Context<AppEnv>, code: ErrorCode, message: string, details?: Record<string, unknown>): Response {
  const safe = safeError(message, details);
  const data = { code, requestId: c.get('requestId'), ...(safe.details ? { details: safe.details } : {}) };
  return c.json({ jsonrpc: '2.0', error: { code: rpcCodeOf(code), message: safe.message, data }, id: null }, statusForCode(code));
}

/** The door's `onError`: as the core renders errors (generic 500 for ours, logged), in JSON-RPC's shape. */
export function handleMcpError(error: Error, c: Context<AppEnv>): Response {
  const domain: DomainError = domainErrorOf(error, c);
  countRateLimited(domain);
  if (domain instanceof ServiceUnavailableError || domain instanceof RateLimitedError) c.header('Retry-After', String(domain.retryAfterSeconds));
  if (domain.code === 'unauthenticated') c.header('WWW-Authenticate', 'Bearer');
  return renderRpcError(c, domain.code, domain.message, domain.details);
}
