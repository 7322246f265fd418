import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { expect } from 'vitest';
import type { AgentEvent } from '../../src/model';
import { EventTracer } from '../../src/otel/index';
import { TimelineRenderer } from '../../src/view';

/**
 * What the fuzz properties ask of the consumers of events: the timeline (with and without
 * colour) and the tracer (content captured) take `events` without throwing, and the tracer ends
 * every span it opened.
 */
export function viewAndTrace(events: readonly AgentEvent[]): void {
  for (const color of [true, false]) {
    const timeline = new TimelineRenderer({ color });
    for (const e of events) timeline.render(e);
    timeline.end();
  }
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
  });
  const tracer = new EventTracer({
    tracer: provider.getTracer('fuzz'),
    captureContent: true,
    clock: () => 1,
  });
  for (const e of events) tracer.push(e);
  tracer.end();
  expect(tracer.openSpans).toBe(0);
}
