import { afterEach, beforeEach, expect, test } from 'vitest';
import { hep } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';
import { createOtlpTracing, tracesUrl } from '../../src/node/otel-export';
import { traceEvents } from '../../src/otel/index';
import { attr, startReceiver } from './otlp-receiver';

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

test('tracesUrl appends /v1/traces once', () => {
  expect(tracesUrl('http://127.0.0.1:4318')).toBe('http://127.0.0.1:4318/v1/traces');
  expect(tracesUrl('http://h:1/')).toBe('http://h:1/v1/traces');
  expect(tracesUrl('http://h:1/v1/traces')).toBe('http://h:1/v1/traces');
});

test('spans reach a collector over OTLP/HTTP as run → rounds → tools', async () => {
  const fx = loadFixture('hep', 'tool-then-text');
  const otlp = await createOtlpTracing({ endpoint: receiver.url, serviceName: 'svc-test', format: 'hep' });
  await traceEvents(hep.parse(fx.bytes).events, { tracer: otlp.tracer });
  await otlp.shutdown();
  const spans = receiver.spans;
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const runs = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent');
  const rounds = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
  const tools = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool');
  expect(runs.length).toBe(1);
  expect(rounds.length).toBeGreaterThan(0);
  expect(tools.length).toBeGreaterThan(0);
  for (const r of rounds) expect(r.parentSpanId).toBe(runs[0]!.spanId);
  for (const t of tools) expect(byId.get(t.parentSpanId!)?.name.startsWith('chat')).toBe(true);
  expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
  expect(JSON.stringify(receiver.resources)).toContain('svc-test');
});
