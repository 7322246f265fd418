import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, codex, convert, hep, nativeharness, validateEvent } from '../../src/all';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';

// Streams shaped as codex exec writes them, from arbitrary values: every record type and item
// type, in Codex's key order, snapshots of one id, resumed threads, free-form JSON.

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const id = fc.constantFrom('item_0', 'item_1', 'item_2', 'item_3');
const count = fc.nat({ max: 1_000_000 });
// JSON values whose numbers JSON.parse keeps exactly (the decoder reports the others).
const safe = (v: unknown): boolean =>
  typeof v === 'number'
    ? Number.isSafeInteger(v) || !Number.isInteger(v)
    : typeof v === 'object' && v !== null
      ? Object.values(v).every(safe)
      : true;
const json: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 }).filter(safe);
const obj = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 3 });

const item = fc.oneof(
  fc.record({ id, type: fc.constant('agent_message'), text }),
  fc.record({
    id,
    type: fc.constant('agent_message'),
    text,
    phase: fc.constantFrom('commentary', 'final_answer'),
  }),
  fc.record({ id, type: fc.constant('reasoning'), text }),
  fc.record({ id, type: fc.constant('plan'), text }),
  fc.record({
    id,
    type: fc.constant('command_execution'),
    command: text,
    aggregated_output: text,
    exit_code: fc.option(fc.integer({ min: -1, max: 255 })),
    status: fc.constantFrom('in_progress', 'completed', 'failed', 'declined'),
  }),
  fc.record({
    id,
    type: fc.constant('file_change'),
    changes: fc.array(fc.record({ path: text, kind: fc.constantFrom('add', 'delete', 'update') }), {
      maxLength: 3,
    }),
    status: fc.constantFrom('in_progress', 'completed', 'failed'),
  }),
  fc.record({
    id,
    type: fc.constant('mcp_tool_call'),
    server: text,
    tool: text,
    arguments: obj,
    result: fc.option(
      fc.record({
        content: fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 }),
        structured_content: fc.option(obj),
      }),
    ),
    error: fc.option(fc.record({ message: text })),
    status: fc.constantFrom('in_progress', 'completed', 'failed'),
  }),
  fc.record({
    id,
    type: fc.constant('collab_tool_call'),
    tool: fc.constantFrom('spawn_agent', 'send_input', 'wait', 'close_agent'),
    sender_thread_id: text,
    receiver_thread_ids: fc.array(fc.constantFrom('t1', 't2'), { maxLength: 2 }),
    prompt: fc.option(text),
    agents_states: fc.dictionary(
      fc.constantFrom('t1', 't2'),
      fc.record({
        status: fc.constantFrom('running', 'completed', 'errored', 'shutdown', 'interrupted'),
        message: fc.option(text),
      }),
    ),
    status: fc.constantFrom('in_progress', 'completed', 'failed'),
  }),
  fc.record({
    id,
    type: fc.constant('todo_list'),
    items: fc.array(fc.record({ text, completed: fc.boolean() }), { maxLength: 3 }),
  }),
  fc.record({ id, type: fc.constant('error'), message: text }),
);

// A web search item, with its duplicate id written as Codex writes it.
const webSearch = fc
  .record({ id, search: fc.constantFrom('ws_a', 'exec-b'), query: text, action: obj })
  .map(
    (w) =>
      `{"id":${JSON.stringify(w.id)},"type":"web_search","id":${JSON.stringify(w.search)},"query":${JSON.stringify(w.query)},"action":${JSON.stringify(w.action)}}`,
  );

const usage = fc
  .record(
    {
      input_tokens: count,
      cached_input_tokens: count,
      cache_write_input_tokens: count,
      output_tokens: count,
      reasoning_output_tokens: count,
    },
    { requiredKeys: ['input_tokens', 'cached_input_tokens', 'output_tokens'] },
  )
  .map((u) => {
    // Codex's own key order, whatever fast-check gave
    const o: Record<string, number> = {};
    for (const k of [
      'input_tokens',
      'cached_input_tokens',
      'cache_write_input_tokens',
      'output_tokens',
      'reasoning_output_tokens',
    ])
      if ((u as Record<string, number>)[k] !== undefined) o[k] = (u as Record<string, number>)[k]!;
    return o;
  });

const record = fc.oneof(
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('t-a', 't-b')
      .map((t) => JSON.stringify({ type: 'thread.started', thread_id: t })),
  },
  { weight: 2, arbitrary: fc.constant('{"type":"turn.started"}') },
  {
    // a key a later Codex may add, before or after the type: it comes back where it stood
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('thread.started', 'turn.started'),
        fc.constantFrom('zz', 'turn_id'),
        json,
        fc.boolean(),
      )
      .map(([type, key, value, first]) => {
        const pair = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
        const rest = type === 'thread.started' ? ',"thread_id":"t-a"' : '';
        return first ? `{${pair},"type":"${type}"${rest}}` : `{"type":"${type}"${rest},${pair}}`;
      }),
  },
  {
    weight: 8,
    arbitrary: fc
      .tuple(fc.constantFrom('item.started', 'item.updated', 'item.completed'), item)
      .map(([type, it]) => JSON.stringify({ type, item: it })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('item.started', 'item.completed'), webSearch)
      .map(([type, it]) => `{"type":"${type}","item":${it}}`),
  },
  { weight: 2, arbitrary: usage.map((u) => JSON.stringify({ type: 'turn.completed', usage: u })) },
  { weight: 1, arbitrary: text.map((m) => JSON.stringify({ type: 'turn.failed', error: { message: m } })) },
  { weight: 1, arbitrary: text.map((m) => JSON.stringify({ type: 'error', message: m })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ type: fc.constantFrom('item.plan.delta', 'turn.aborted'), n: json })
      .map((r) => JSON.stringify(r)),
  },
);

const stream = fc.array(record, { minLength: 1, maxLength: 14 }).map((l) => `${l.join('\n')}\n`);
const enc = new TextEncoder();

describe('codex properties', () => {
  test('stringify(parse(x).events) === x for any stream codex exec could write', () => {
    fc.assert(
      fc.property(stream, (input) => {
        const { events, diagnostics } = codex.parse(input);
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        for (const e of events) expect(validateEvent(e).success).toBe(true);
        expect(codex.stringify(events)).toBe(input);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  test('any chunking gives the same events', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (input, cuts) => {
        const bytes = enc.encode(input);
        const decoder = codex.createDecoder();
        const events: AgentEvent[] = [];
        for (const c of chunkAt(
          bytes,
          cuts.map((n) => n % (bytes.length + 1)),
        ))
          events.push(...decoder.push(c));
        events.push(...decoder.end());
        expect(events).toEqual(codex.parse(input).events);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  test('the runs’ usage totals equal the last running total of each thread, never the sum', () => {
    fc.assert(
      fc.property(fc.array(usage, { minLength: 1, maxLength: 5 }), (totals) => {
        // a resumed thread: each run re-sends thread.started, and totals only grow
        let acc = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 };
        const lines: string[] = [];
        for (const u of totals) {
          acc = {
            input_tokens: acc.input_tokens + u.input_tokens!,
            cached_input_tokens: acc.cached_input_tokens + u.cached_input_tokens!,
            output_tokens: acc.output_tokens + u.output_tokens!,
          };
          lines.push(
            '{"type":"thread.started","thread_id":"t"}',
            '{"type":"turn.started"}',
            JSON.stringify({ type: 'turn.completed', usage: acc }),
          );
        }
        const { events } = codex.parse(`${lines.join('\n')}\n`);
        const sum = { input: 0, cacheRead: 0, output: 0 };
        for (const e of events)
          if (e.type === 'run.end') {
            sum.input += e.usage!.input!;
            sum.cacheRead += e.usage!.cacheRead!;
            sum.output += e.usage!.output!;
          }
        expect(sum).toEqual({
          input: acc.input_tokens,
          cacheRead: acc.cached_input_tokens,
          output: acc.output_tokens,
        });
        const rounds = events
          .filter((e) => e.type === 'round.end')
          .reduce((n, e) => n + (e.type === 'round.end' ? (e.usage?.input ?? 0) : 0), 0);
        expect(rounds).toBe(acc.input_tokens);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  test('any stream converts to HEP and nativeharness and back to a stream codex reads without error', () => {
    fc.assert(
      fc.property(stream, (input) => {
        let n = 0;
        const det = { clock: () => 1767225600000, idSource: () => `id-${++n}` };
        for (const to of ['hep', 'nativeharness'] as const) {
          const out = convert(input, { from: 'codex', to, ...det }).output;
          const target = to === 'hep' ? hep : nativeharness;
          expect(target.parse(out).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
          const back = convert(out, { from: to, to: 'codex', ...det }).output;
          expect(codex.parse(back).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        }
      }),
      { numRuns: Math.max(20, Math.floor(FUZZ_RUNS / 4)) },
    );
  });
});
