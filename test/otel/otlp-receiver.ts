import { createServer, type Server } from 'node:http';

/** One span as an OTLP/HTTP JSON request carries it (the fields the tests read). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number; message?: string };
  events?: { name: string }[];
}

/** A loopback OTLP/HTTP traces receiver that decodes what it is sent (JSON encoding). */
export async function startReceiver(): Promise<{
  url: string;
  spans: OtlpSpan[];
  resources: unknown[];
  close(): Promise<void>;
}> {
  const spans: OtlpSpan[] = [];
  const resources: unknown[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as {
        resourceSpans: { resource: unknown; scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const rs of body.resourceSpans) {
        resources.push(rs.resource);
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    resources,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A span attribute's value, whatever its OTLP type. */
export function attr(span: OtlpSpan, key: string): unknown {
  const a = span.attributes.find((x) => x.key === key);
  if (a === undefined) return undefined;
  const v = a.value;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  return v;
}
