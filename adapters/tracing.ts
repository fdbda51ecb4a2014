import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Link, type Span } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { ATTR_ERROR_TYPE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions';

/**
 * The service's own spans around every outbound call
 * (docs/decisions/span-names-and-attributes.md). With tracing off no SDK is registered and these are the OpenTelemetry API's no-op spans.
 *
 * What a span may carry: names of operations, ids of our own records, models, tool names, host
 * names, status codes, token counts and sizes. Never a prompt, message, tool argument or result,
 * URL path or query, header, command line or secret; an error is recorded as its class or code
 * (`error.type`), never its message (a vendor's error text can quote the prompt).
 */

export const tracer = trace.getTracer('agent-runtime-service');

export { SpanKind };

/**
 * Runs `fn` inside a new active span and ends it when `fn` settles. A throw marks the span as
 * failed with `error.type` (the error's `errorCode` or class name) and is rethrown.
 */
export function withSpan<T>(name: string, options: { kind?: SpanKind; attributes?: Attributes; links?: Link[] }, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {}, links: options.links ?? [] },
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        markFailed(span, errorType(error));
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks `span` as failed with a bounded, safe `error.type` (a code or a class name, never a message). */
export function markFailed(span: Span, type: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Sets an attribute on the active span, if any (an adapter reporting what the wire told it). */
export function setActiveSpanAttribute(key: string, value: string | number | boolean): void {
  trace.getActiveSpan()?.setAttribute(key, value);
}

/** `server.address` and `server.port` of a URL: its host only, never its path, query or credentials. */
export function serverAttributes(url: string | URL): Attributes {
  try {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : undefined) : Number(parsed.port);
    return { [ATTR_SERVER_ADDRESS]: parsed.hostname, ...(port === undefined ? {} : { [ATTR_SERVER_PORT]: port }) };
  } catch {
    return {};
  }
}

/** An HTTP exchange's outcome on its span: the status, or the failure's kind as `error.type`. */
export function recordHttpOutcome(span: Span, outcome: { kind: string; status?: number }): void {
  if (outcome.kind === 'response' && typeof outcome.status === 'number') {
    span.setAttribute('http.response.status_code', outcome.status);
    if (outcome.status >= 400) markFailed(span, String(outcome.status));
  } else {
    markFailed(span, outcome.kind);
  }
}

/** Runs `fn` with tracing suppressed: the spans it would open are not recorded, and no context is propagated. */
export function untraced<T>(fn: () => T): T {
  return context.with(suppressTracing(context.active()), fn);
}

/** Runs `fn` outside the active trace: a span it opens begins a trace of its own. */
export function inNewTrace<T>(fn: () => T): T {
  return context.with(trace.deleteSpan(context.active()), fn);
}

function errorType(error: unknown): string {
  const code = (error as { errorCode?: unknown } | null)?.errorCode;
  if (typeof code === 'string' && /^[a-z0-9_.-]{1,64}$/i.test(code)) return code;
  return error instanceof Error ? error.name : 'unknown';
}
