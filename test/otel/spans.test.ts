import { SpanStatusCode } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, codecFor, type Format } from '../../src/all';
import { listFixtures, loadFixture } from '../../src/node/fixtures';
import { EventTracer, traceEvents } from '../../src/otel/index';

function setup() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { exporter, provider, tracer: provider.getTracer('agentwire-test') };
}

const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
const op = (s: ReadableSpan) => s.attributes['gen_ai.operation.name'];
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

function byId(spans: ReadableSpan[]): Map<string, ReadableSpan> {
  return new Map(spans.map((s) => [s.spanContext().spanId, s]));
}

// The tool calls of a stream, per lane: every call id a tool.start or tool.end names.
function toolCalls(events: AgentEvent[]): Set<string> {
  const calls = new Set<string>();
  for (const e of events)
    if (e.type === 'tool.start' || e.type === 'tool.end') calls.add(`${e.lane ?? ''}\u0000${e.call}`);
  return calls;
}

function roundInputs(events: AgentEvent[]): number[] {
  const out: number[] = [];
  const calls = new Map<string, Map<string, number>>();
  for (const e of events) {
    const lane = e.lane ?? '';
    if (e.type === 'usage' && e.usage.final !== false && (e.usage.scope ?? 'call') === 'call') {
      const m = calls.get(lane) ?? new Map<string, number>();
      m.set(e.usage.key ?? `#${m.size}`, e.usage.input ?? 0);
      calls.set(lane, m);
    }
    if (e.type === 'round.end') {
      const m = calls.get(lane);
      out.push(e.usage?.input ?? (m === undefined ? 0 : sum([...m.values()])));
      calls.delete(lane);
    }
    if (e.type === 'round.start') calls.delete(lane);
  }
  return out;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function spansOf(events: AgentEvent[], format?: Format) {
  const { exporter, tracer, provider } = setup();
  let t = 1_767_225_600_000;
  const summary = await traceEvents(events, { tracer, clock: () => t++, ...(format ? { format } : {}) });
  await provider.forceFlush();
  return { spans: exporter.getFinishedSpans(), summary };
}

const fixtures = listFixtures().filter((f) => !f.name.includes('.'));

describe.each(fixtures.map((f) => [`${f.format}/${f.name}`, f] as const))('spans of %s', (_label, info) => {
  const fx = loadFixture(info.format, info.name);
  const events = codecFor(info.format)!.parse(fx.bytes).events;

  test('every span ends, starts before it ends, and names its operation', async () => {
    const { spans, summary } = await spansOf(events);
    expect(spans.length).toBe(summary.spans);
    for (const s of spans) {
      expect(ms(s.endTime)).toBeGreaterThanOrEqual(ms(s.startTime));
      expect(['invoke_agent', 'chat', 'execute_tool']).toContain(op(s));
      expect(s.name.startsWith(String(op(s)))).toBe(true);
      expect(typeof s.attributes['gen_ai.provider.name']).toBe('string');
    }
  });

  test('the tree: tools under rounds or runs, rounds under runs, one tool span per call', async () => {
    const { spans } = await spansOf(events);
    const ids = byId(spans);
    const tools = spans.filter((s) => op(s) === 'execute_tool');
    for (const s of tools) {
      const parent = ids.get(parentOf(s)!);
      expect(parent && ['chat', 'invoke_agent'].includes(String(op(parent)))).toBe(true);
    }
    for (const s of spans.filter((x) => op(x) === 'chat')) {
      expect(op(ids.get(parentOf(s)!)!)).toBe('invoke_agent');
    }
    expect(tools.length).toBe(toolCalls(events).size);
    const callIds = new Set(tools.map((s) => s.attributes['gen_ai.tool.call.id']));
    for (const e of events) if (e.type === 'tool.start') expect(callIds.has(e.call)).toBe(true);
    // Every top-level span is a run.
    for (const s of spans.filter((x) => parentOf(x) === undefined)) expect(op(s)).toBe('invoke_agent');
  });

  test('failed tool calls and failed runs carry an error status and type', async () => {
    const { spans } = await spansOf(events);
    const failedCalls = new Set(
      events.filter((e) => e.type === 'tool.end' && !e.ok).map((e) => (e as { call: string }).call),
    );
    for (const s of spans.filter((x) => op(x) === 'execute_tool')) {
      const failed = failedCalls.has(String(s.attributes['gen_ai.tool.call.id']));
      expect(s.status.code === SpanStatusCode.ERROR).toBe(failed);
      if (failed) expect(s.attributes['error.type']).toBeDefined();
    }
    const runs = spans.filter((x) => op(x) === 'invoke_agent' && parentOf(x) === undefined);
    const ends = events.filter((e) => e.type === 'run.end' && e.lane === undefined);
    const bad = ends.filter(
      (e) => e.type === 'run.end' && (e.status === 'failed' || e.status === 'incomplete'),
    );
    expect(runs.filter((s) => s.status.code === SpanStatusCode.ERROR).length).toBeGreaterThanOrEqual(
      bad.length,
    );
    for (const e of ends) {
      if (e.type !== 'run.end') continue;
      expect(runs.some((s) => s.attributes['agentwire.run.status'] === e.status)).toBe(true);
    }
  });

  test("rounds carry each round's usage once; runs the run's total", async () => {
    const { spans } = await spansOf(events);
    // A round's usage: its round.end's own, else its whole per-call figures (one per key).
    const roundInput = sum(roundInputs(events));
    const chatInput = sum(
      spans
        .filter((s) => op(s) === 'chat')
        .map((s) => Number(s.attributes['gen_ai.usage.input_tokens'] ?? 0)),
    );
    expect(chatInput).toBe(roundInput);
    const runInput = sum(
      events.flatMap((e) =>
        e.type === 'run.end' && e.lane === undefined && e.usage?.input !== undefined ? [e.usage.input] : [],
      ),
    );
    const spanRunInput = sum(
      spans
        .filter((s) => op(s) === 'invoke_agent' && parentOf(s) === undefined)
        .map((s) => Number(s.attributes['gen_ai.usage.input_tokens'] ?? 0)),
    );
    expect(spanRunInput).toBe(runInput);
  });

  test('no content unless asked', async () => {
    const { spans } = await spansOf(events);
    for (const s of spans) {
      for (const k of Object.keys(s.attributes)) {
        expect([
          'gen_ai.input.messages',
          'gen_ai.output.messages',
          'gen_ai.tool.call.arguments',
          'gen_ai.tool.call.result',
        ]).not.toContain(k);
      }
    }
  });
});

describe('a hand-built run', () => {
  const events: AgentEvent[] = [
    { type: 'session.start', session: 's1', producer: 'fa 1.0', model: 'claude-x', ts: 1000 },
    { type: 'run.start', input: 'fix the build', ts: 1001 },
    { type: 'round.start', round: 1, ts: 1002 },
    { type: 'text.delta', text: 'Looking', round: 1, ts: 1003 },
    {
      type: 'tool.start',
      call: 'c1',
      name: 'bash',
      kind: 'execute',
      args: { cmd: 'npm test' },
      round: 1,
      ts: 1004,
    },
    { type: 'approval.request', approval: 'a1', call: 'c1', tool: 'bash', ts: 1005 },
    { type: 'approval.resolve', approval: 'a1', decision: 'allow', ts: 1006 },
    { type: 'tool.end', call: 'c1', ok: false, error: 'exit 1', exitCode: 1, round: 1, ts: 1010 },
    { type: 'tool.start', call: 'task1', name: 'Task', round: 1, ts: 1011 },
    { type: 'child.start', child: 'task1', call: 'task1', name: 'explorer', ts: 1012 },
    { type: 'tool.start', call: 'c2', name: 'read', lane: 'task1', ts: 1013 },
    { type: 'tool.end', call: 'c2', ok: true, text: 'x'.repeat(100), lane: 'task1', ts: 1014 },
    { type: 'child.end', child: 'task1', status: 'completed', usage: { input: 7, output: 1 }, ts: 1015 },
    { type: 'tool.end', call: 'task1', ok: true, ts: 1016 },
    { type: 'notice', kind: 'rate_limit', severity: 'warning', ts: 1017 },
    {
      type: 'round.end',
      message: 'Done',
      stopReason: 'end_turn',
      model: 'claude-x-1',
      usage: { input: 120, output: 30, cacheRead: 100, cacheWrite: 10, reasoning: 5, costUsd: 0.01 },
      round: 1,
      ts: 1020,
    },
    { type: 'run.end', status: 'completed', answer: 'Done', usage: { input: 120, output: 30 }, ts: 1021 },
  ];

  test('gives exactly this tree, with conventions attributes', async () => {
    const { spans } = await spansOf(events, 'hep');
    const ids = byId(spans);
    const named = (n: string) => spans.find((s) => s.name === n)!;
    const run = named('invoke_agent fa');
    const chat = named('chat claude-x');
    const bash = named('execute_tool bash');
    const task = named('execute_tool Task');
    const child = named('invoke_agent explorer');
    const read = named('execute_tool read');
    expect(spans.length).toBe(6);
    expect(parentOf(run)).toBeUndefined();
    expect(ids.get(parentOf(chat)!)).toBe(run);
    expect(ids.get(parentOf(bash)!)).toBe(chat);
    expect(ids.get(parentOf(child)!)).toBe(task);
    expect(ids.get(parentOf(read)!)).toBe(child);
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': 's1',
      'gen_ai.agent.name': 'fa',
      'agentwire.producer': 'fa 1.0',
      'gen_ai.usage.input_tokens': 120,
      'agentwire.run.status': 'completed',
    });
    expect(chat.attributes).toMatchObject({
      'gen_ai.request.model': 'claude-x',
      'gen_ai.response.model': 'claude-x-1',
      'gen_ai.response.finish_reasons': ['end_turn'],
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 100,
      'gen_ai.usage.cache_creation.input_tokens': 10,
      'gen_ai.usage.reasoning.output_tokens': 5,
      'agentwire.usage.cost_usd': 0.01,
    });
    expect(bash.status.code).toBe(SpanStatusCode.ERROR);
    expect(bash.attributes).toMatchObject({
      'error.type': 'exit_code',
      'gen_ai.tool.call.id': 'c1',
      'agentwire.tool.kind': 'execute',
    });
    expect(bash.events.map((e) => e.name)).toEqual(['agentwire.approval.request']);
    expect(chat.events.map((e) => e.name)).toEqual(['agentwire.approval.resolve', 'agentwire.notice']);
    expect(child.attributes).toMatchObject({ 'gen_ai.agent.id': 'task1', 'gen_ai.usage.input_tokens': 7 });
    expect([ms(run.startTime), ms(run.endTime)]).toEqual([1001, 1021]);
    expect([ms(bash.startTime), ms(bash.endTime)]).toEqual([1004, 1010]);
  });

  test('content only with captureContent, capped', async () => {
    const { exporter, tracer, provider } = setup();
    await traceEvents(events, { tracer, captureContent: true, maxContentChars: 10, format: 'hep' });
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const run = spans.find((s) => s.name === 'invoke_agent fa')!;
    expect(JSON.parse(String(run.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'fix the bu…(+3 chars)' }] },
    ]);
    const read = spans.find((s) => s.name === 'execute_tool read')!;
    expect(read.attributes['gen_ai.tool.call.result']).toBe(`${'x'.repeat(10)}…(+90 chars)`);
  });

  test('a stream cut mid-run closes every open span at the last time, as incomplete', async () => {
    const { spans } = await spansOf(events.slice(0, 12), 'hep');
    expect(spans.length).toBe(6);
    const run = spans.find((s) => s.name === 'invoke_agent fa')!;
    expect(run.attributes['agentwire.run.status']).toBe('incomplete');
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    for (const s of spans) expect(ms(s.endTime)).toBeLessThanOrEqual(1014);
    const task = spans.find((s) => s.name === 'execute_tool Task')!;
    expect(task.attributes['agentwire.tool.status']).toBe('incomplete');
  });
});

describe('bounded memory', () => {
  test('100 000 events: no span is kept after it ended', async () => {
    let exported = 0;
    const provider = new TracerProvider({
      spanProcessors: [
        new SimpleSpanProcessor({
          exporter: {
            export: (s, done) => {
              exported += s.length;
              done({ code: 0 });
            },
            shutdown: async () => {},
          },
        }),
      ],
    });
    const tracer = new EventTracer({ tracer: provider.getTracer('t'), clock: () => 1 });
    let maxOpen = 0;
    let n = 0;
    for (let run = 0; n < 100_000; run++) {
      const batch: AgentEvent[] = [{ type: 'run.start' }];
      for (let r = 1; r <= 5; r++) {
        batch.push({ type: 'text.delta', text: 'hi', round: r });
        batch.push({ type: 'tool.start', call: `c${run}-${r}`, name: 'bash', round: r });
        batch.push({ type: 'tool.end', call: `c${run}-${r}`, ok: true, round: r });
        batch.push({ type: 'round.end', message: '', round: r, usage: { input: 1, output: 1 } });
      }
      batch.push({ type: 'run.end', status: 'completed' });
      for (const e of batch) {
        tracer.push(e);
        maxOpen = Math.max(maxOpen, tracer.openSpans);
        n++;
      }
    }
    tracer.end();
    await provider.forceFlush();
    expect(maxOpen).toBeLessThanOrEqual(3);
    expect(tracer.openSpans).toBe(0);
    expect(exported).toBe(tracer.spansStarted);
  });
});
