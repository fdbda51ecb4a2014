import { trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { Resource, type IResource } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * OpenTelemetry traces for one process (docs/decisions/tracing-on-and-off.md). Started
 * by the entry points in scripts/ when settings say an OTLP endpoint is configured
 * (`settings.tracing.enabled`); otherwise nothing is started and every span the code opens is the
 * API's no-op span. The SDK reads the standard `OTEL_*` variables itself (exporter, protocol,
 * headers, sampler, resource attributes, batch sizes): `config/settings.ts` only decides on/off.
 *
 * No auto-instrumentation is registered: the spans are the explicit ones of the API middleware,
 * the Temporal interceptors and the outbound adapters, whose attributes we choose (an http, undici
 * or pg instrumentation would record URLs with their query strings and SQL text).
 */

/** The process's tracing, handed to the Temporal wiring (temporal/tracing.ts). */
export type Tracing = {
  /** Where finished spans go: the workflow sandbox's spans are fed here through a sink. */
  spanProcessor: SpanProcessor;
  /** The resource every span of this process carries (service name and the `OTEL_*` attributes). */
  resource: IResource;
  /** Exports what is buffered, then stops; called once at process exit. */
  shutdown(): Promise<void>;
};

/** The resource `service.name` of each entry point, unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names one. */
export type ServiceRole = 'agent-runtime-api' | 'agent-runtime-worker' | 'agent-runtime';

/**
 * Starts the OpenTelemetry SDK (W3C trace context propagation, the AsyncLocalStorage context
 * manager, batched OTLP export as the `OTEL_*` variables say) and returns it; null when tracing
 * is off, at no cost. Call once, first thing after the settings are parsed.
 */
export function startTracing(options: { enabled: boolean; serviceName: ServiceRole }): Tracing | null {
  if (!options.enabled) return null;
  const sdk = new NodeSDK({
    // Our default name; the environment detector's OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES win.
    resource: new Resource({ [ATTR_SERVICE_NAME]: options.serviceName }),
    // Traces only: the SDK would otherwise set up an OTLP log exporter nothing writes to.
    logRecordProcessors: [],
  });
  sdk.start();
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as Partial<BasicTracerProvider>;
  // OTEL_TRACES_EXPORTER=none (or OTEL_SDK_DISABLED) leaves no provider registered: nothing to feed.
  if (typeof provider.getActiveSpanProcessor !== 'function' || !provider.resource) {
    void sdk.shutdown();
    return null;
  }
  return {
    spanProcessor: provider.getActiveSpanProcessor(),
    resource: provider.resource,
    shutdown: () => sdk.shutdown(),
  };
}
