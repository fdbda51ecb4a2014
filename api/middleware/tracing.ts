import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_SCHEME } from '@opentelemetry/semantic-conventions';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

const tracer = trace.getTracer('agent-runtime-service');

/**
 * First middleware: one SERVER span per request, active while the request is handled, so a run
 * the request queues starts its workflow inside this trace (the Temporal client interceptor
 * carries the context into the workflow's headers). A caller's W3C `traceparent` is continued.
 * Named and labelled by the route pattern (`POST /v1/projects/:projectId/sessions`), never the
 * path with its ids or the query; no header and no body is recorded. With tracing off (no SDK
 * registered) the span is the API's no-op span.
 */
export const traceRequest = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const parent = propagation.extract(context.active(), c.req.raw.headers, headersGetter);
    const method = c.req.method;
    const scheme = c.req.url.startsWith('https:') ? 'https' : 'http';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_SCHEME]: scheme } }, parent);
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      if (span.isRecording()) {
        // The matched route's pattern; a request no route matched keeps the bare method as its name.
        const route = c.req.routePath;
        if (route && route !== '/*') {
          span.updateName(`${method} ${route}`);
          span.setAttribute(ATTR_HTTP_ROUTE, route);
        }
        const status = c.res.status;
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        const requestId = c.get('requestId') as string | undefined;
        if (requestId) span.setAttribute('agent_runtime.request_id', requestId);
      }
      span.end();
    }
  });

const headersGetter = {
  keys: (headers: Headers) => [...headers.keys()],
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
};
