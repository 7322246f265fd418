// OTLP/HTTP export for `agentwire otel`: the official OpenTelemetry SDK and exporter, loaded only
// when asked for (optional peer dependencies), so the library itself never needs them.
import type { Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { Format } from '../diagnostics';

/** Options of {@link createOtlpTracing}. */
export interface OtlpTracingOptions {
  /**
   * The collector's base URL (`http://127.0.0.1:4318`); traces go to `<endpoint>/v1/traces`
   * unless the URL already ends with that path. Default: the exporter's own default
   * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `http://localhost:4318`).
   */
  endpoint?: string;
  /** `service.name` of the resource. Default `agentwire`. */
  serviceName?: string;
  /** Extra HTTP headers (authentication for a hosted backend). */
  headers?: Record<string, string>;
  /** The input format, recorded as `agentwire.format` on the resource. */
  format?: Format;
  /**
   * Called for each batch of spans the collector did not take (unreachable, refused, an HTTP
   * error): those spans are lost. Without it a failed batch is left to OpenTelemetry's global
   * error handler (silent unless a diag logger is set); `shutdown` and `flush` still reject for
   * the last one.
   */
  onExportError?: (error: Error) => void;
}

/** A tracer exporting over OTLP/HTTP in batches, and how to flush and stop it. */
export interface OtlpTracing {
  tracer: Tracer;
  /** Sends every ended span now. */
  flush(): Promise<void>;
  /** Flushes and stops the exporter. */
  shutdown(): Promise<void>;
}

const PEERS = '@opentelemetry/api @opentelemetry/sdk-trace @opentelemetry/exporter-trace-otlp-http';

/** The OTLP/HTTP traces URL for a collector base URL. */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

/**
 * Builds a tracer whose spans go to an OTLP/HTTP collector through the SDK's batch processor.
 * Throws a plain `Error` naming the packages to install when the optional peers are missing.
 */
export async function createOtlpTracing(options: OtlpTracingOptions = {}): Promise<OtlpTracing> {
  let sdk: typeof import('@opentelemetry/sdk-trace');
  let otlp: typeof import('@opentelemetry/exporter-trace-otlp-http');
  let resources: typeof import('@opentelemetry/resources');
  try {
    sdk = await import('@opentelemetry/sdk-trace');
    otlp = await import('@opentelemetry/exporter-trace-otlp-http');
    resources = await import('@opentelemetry/resources');
  } catch (cause) {
    throw new Error(`agentwire otel needs the OpenTelemetry packages: npm install ${PEERS}`, { cause });
  }
  const exporterOptions: { url?: string; headers?: Record<string, string> } = {};
  if (options.endpoint !== undefined) exporterOptions.url = tracesUrl(options.endpoint);
  if (options.headers !== undefined) exporterOptions.headers = options.headers;
  const otlpExporter = new otlp.OTLPTraceExporter(exporterOptions);
  const onError = options.onExportError;
  // The batch processor's exporter, with each failed batch reported as it fails (0: SUCCESS).
  const exporter: SpanExporter =
    onError === undefined
      ? otlpExporter
      : {
          export: (spans, done) =>
            otlpExporter.export(spans, (result) => {
              if (result.code !== 0)
                onError(result.error ?? new Error('the collector did not take the spans'));
              done(result);
            }),
          shutdown: () => otlpExporter.shutdown(),
          forceFlush: () => otlpExporter.forceFlush(),
        };
  const attributes: Record<string, string> = { 'service.name': options.serviceName ?? 'agentwire' };
  if (options.format !== undefined) attributes['agentwire.format'] = options.format;
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes(attributes),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  return {
    tracer: provider.getTracer('agentwire'),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
