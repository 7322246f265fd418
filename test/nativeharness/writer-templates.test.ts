import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { type AgentEvent, nativeharness } from '../../src/all';
import { NH_TEMPLATES } from '../../src/formats/nativeharness/encode';
import { FUZZ_RUNS } from '../runs';
import { text, usage, type Written, writeSwitched } from '../writer-values';

// The nativeharness writer spells the `hop`, `tool_started` and `tool_result` payloads from one
// template each when the payload has no extra keys or other key order to restore
// (docs/performance.md, "nativeharness writer, round twenty-one"), and another format's frequent
// events each by its type's own function (`writeDelta` …, "Round twenty-seven: the nativeharness
// writer"). This property holds both equal to the general path (`joinRecord` over pieces) on
// random event streams: the same bytes after every event, the same diagnostics, the same error
// when a value cannot be written.

// A message's or tool output's text, which the templates escape with `jsonText` until the
// stream's long texts turn dense (`long`): short text, or 64 characters and more with few
// characters to escape (prose), many (JSON), or ones only JSON.stringify escapes.
const prose = fc
  .array(fc.constantFrom(...Array<string>(5).fill('a run of plain words and more '), ' "q"', '\n', 'C:\\x'), {
    minLength: 4,
    maxLength: 12,
  })
  .map((parts) => parts.join(''));
const dense = fc
  .array(fc.constantFrom('{"k":', '"v"', ',', '\\"', '\n', 'x'), { minLength: 30, maxLength: 60 })
  .map((parts) => parts.join(''));
const odd = fc.string({
  unit: fc.constantFrom('a', ' ', '"', '\u0001', '\ud83d', 'é'),
  minLength: 64,
  maxLength: 90,
});

// Mostly values that can be written, now and then one that cannot (the write throws the same
// error on both paths, and the stream ends there: often enough, few events would be written).
const mostly = (valid: unknown[], invalid: unknown[]) =>
  fc.oneof(
    { weight: 80, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constantFrom(...invalid) },
  );
const args = fc.constantFrom<unknown>(
  undefined,
  null,
  {},
  { cmd: 'ls' },
  { n: 1, deep: { x: [1, 'a'] } },
  [1],
  'x',
);
const files = mostly([undefined, [], ['a.ts'], ['a.ts', 'b "c".ts']], [[3], 'x']);
const exitCode = mostly([undefined, 0, 1, 127], [null, 1.5, Number.NaN]);
const error = fc.constantFrom<unknown>(undefined, null, 'boom', { code: 'E' }, 5);
// Provenance: none, another format's, this format's with nothing of its own, or with hints
// (extra payload keys, another key order, a kept status, tool call list or raw usage).
const provenance = fc.constantFrom<unknown>(
  undefined,
  undefined,
  undefined,
  { format: 'hep', line: 3, offset: 9 },
  { format: 'hep', line: 3, offset: 9 },
  { format: 'nativeharness', line: 1, offset: 0 },
  { format: 'nativeharness', line: 2, offset: 5, hints: {} },
  { format: 'nativeharness', line: 2, offset: 5, hints: { payloadExtra: { x: 1, y: 'z' } } },
  { format: 'nativeharness', line: 2, offset: 5, hints: { payloadOrder: ['text', 'hop', 'call_id'] } },
  { format: 'nativeharness', line: 2, offset: 5, hints: { status: 'cancelled' } },
  { format: 'nativeharness', line: 2, offset: 5, hints: { toolCalls: ['k1', 'k"2'] } },
  { format: 'nativeharness', line: 2, offset: 5, hints: { rawUsage: { input_tokens: 1, other: 2 } } },
  { format: 'nativeharness', line: 2, offset: 5, hints: { turnNull: true } },
);
const round = fc.constantFrom<unknown>(undefined, undefined, 1, 1, 2, 3);
// A text field: any string, rarely a value that is none.
const textField = fc.oneof(
  { weight: 40, arbitrary: text.filter((t) => typeof t === 'string') },
  { weight: 1, arbitrary: text },
);
// The envelope's fields, which the frequent types' own functions read themselves (`writeDelta`
// …), and a field no type carries (reported as a loss): mostly absent, now and then a value, and
// rarely one that cannot be written (the same error on both paths).
const rarely = (valid: unknown[], invalid: unknown[]) =>
  fc.oneof(
    { weight: 160, arbitrary: fc.constant(undefined) },
    { weight: 40, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constantFrom(...invalid) },
  );
const envelope = fc.record(
  {
    // `next`: a seq above every one before it (see `streams`).
    seq: rarely(['next'], [1.5, 5]),
    ts: rarely([1700000000123, 1.5, -0], [Number.NaN]),
    workspace: rarely(['w1', 'w"2'], [7]),
    session: rarely(['s2', null], [false]),
    run: rarely(['t9', 't"10'], [3]),
    lane: rarely(['side'], ['side']),
  },
  { requiredKeys: [] },
);

const event: fc.Arbitrary<AgentEvent> = fc
  .tuple(
    fc.constantFrom(
      'text.delta',
      'tool.start',
      'tool.start',
      'tool.output',
      'tool.end',
      'tool.end',
      'tool.end-result',
      'round.end',
      'round.end',
      'run.end',
      'run.start',
      'message.start',
    ),
    fc.tuple(textField, textField, mostly(['c1', 'c1', 'c2', 'c"3'], [4]), fc.boolean()),
    fc.oneof({ weight: 2, arbitrary: textField }, prose, dense, odd),
    fc.tuple(usage, mostly([undefined, 'stop', 'toolUse', 'x"\n'], [3]), provenance, round),
    fc.tuple(args, files, exitCode, error, mostly([undefined, 'ls -la', 'x\n"y"'], [9])),
    mostly([undefined, { cmd: 'ls' }, '{"cmd":"ls"}', 'cmd=ls'], [3]),
    envelope,
  )
  .map(([kind, [t, t2, call, ok], long, [u, stop, p, r], [a, f, x, err, command], summary, env]) => {
    const e: Record<string, unknown> = (() => {
      switch (kind) {
        case 'text.delta':
          return { type: 'text.delta', text: t };
        case 'tool.start': {
          const s: Record<string, unknown> = { type: 'tool.start', call, name: t2, args: a, command };
          // a summary that is the arguments' compact JSON, another one, or none
          s.argsSummary =
            summary === undefined ? undefined : typeof summary === 'object' ? JSON.stringify(a) : summary;
          return s;
        }
        case 'tool.output':
          return { type: 'tool.output', call, text: long, stream: ok ? undefined : 'stderr' };
        case 'tool.end':
          return {
            type: 'tool.end',
            call,
            name: t2,
            ok,
            text: long,
            exitCode: x,
            filesChanged: f,
            error: err,
          };
        case 'tool.end-result':
          return { type: 'tool.end', call, ok, result: ok ? { n: t } : t, text: ok ? undefined : t2 };
        case 'round.end':
          return { type: 'round.end', message: long, stopReason: stop, usage: ok ? u : undefined };
        case 'run.end':
          return { type: 'run.end', status: ok ? 'completed' : 'failed', usage: u };
        case 'run.start':
          return { type: 'run.start', run: 't1' };
        default:
          return { type: 'message.start', role: 'assistant' };
      }
    })();
    Object.assign(e, env);
    for (const key of Object.keys(e)) if (e[key] === undefined) delete e[key];
    if (r !== undefined) e.round = r;
    if (p !== undefined) e.provenance = structuredClone(p);
    return e as unknown as AgentEvent;
  });

// Streams of up to 24 events, the seqs marked `next` above every seq before them.
const streams = fc.array(event, { minLength: 1, maxLength: 24, size: 'max' }).map((events) =>
  events.map((e, i) => {
    const seq = (e as { seq?: unknown }).seq;
    return seq === 'next' ? ({ ...e, seq: 100_000 + 2 * i } as AgentEvent) : e;
  }),
);

// The text of every event followed by `|`, then the end, or `threw …` where a write threw.
function write(events: AgentEvent[], templates: boolean, options: object): Written {
  let t = 0;
  return writeSwitched(
    NH_TEMPLATES,
    templates,
    (onDiagnostic) =>
      nativeharness.createEncoder({
        session: 's1',
        clock: () => 1700000000000 + t++,
        idSource: () => 'id',
        ...options,
        onDiagnostic,
      }),
    events,
  );
}

const options = fc.record({
  framing: fc.constantFrom<'sse' | 'json' | 'jsonl'>('sse', 'jsonl'),
  extensions: fc.boolean(),
  conform: fc.boolean(),
  // A `retry` goes before the first SSE block, which is then framed by `frame`, not as the
  // usual block (round thirty-five).
  retry: fc.constantFrom(undefined, undefined, 1500),
});

describe('nativeharness writer: the payload templates against the general path', () => {
  afterEach(() => {
    NH_TEMPLATES.enabled = true;
  });

  test('the same bytes after every event, the same losses and errors', () => {
    fc.assert(
      fc.property(streams, options, (events, opts) => {
        const general = write(structuredClone(events), false, opts);
        const template = write(structuredClone(events), true, opts);
        expect(template.text).toBe(general.text);
        expect(template.diagnostics).toEqual(general.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('the templates are the payloads the reference writes', () => {
    const out = write(
      [
        { type: 'run.start', run: 't1' },
        { type: 'tool.start', call: 'c1', name: 'bash', argsSummary: 'cmd="ls"', round: 1 },
        { type: 'tool.start', call: 'c2', name: 'edit', args: { p: 'a' }, command: 'ed', round: 1 },
        { type: 'tool.end', call: 'c1', name: 'bash', ok: true, text: 'a\n"b"', exitCode: 0, round: 1 },
        { type: 'tool.end', call: 'c2', ok: false, error: 'no', filesChanged: ['a'], round: 1 },
        {
          type: 'round.end',
          message: 'done',
          usage: { input: 3, output: 4, costUsd: 0.5 },
          stopReason: 'toolUse',
          round: 1,
        },
      ],
      true,
      { framing: 'jsonl' },
    ).text;
    const payloads = out
      .split('|')
      .slice(1, -1)
      .map((line) => JSON.stringify(JSON.parse(line).payload));
    expect(payloads).toEqual([
      '{"hop":1,"call_id":"c1","tool":"bash","args":{},"args_summary":"cmd=\\"ls\\""}',
      '{"hop":1,"call_id":"c2","tool":"edit","args":{"p":"a"},"command":"ed"}',
      '{"hop":1,"call_id":"c1","tool":"bash","status":"ok","exit_code":0,"files_changed":[],"output":"a\\n\\"b\\""}',
      '{"hop":1,"call_id":"c2","tool":"","status":"error","exit_code":null,"files_changed":["a"],"error":"no"}',
      '{"hop":1,"text":"done","tool_calls":["c1","c2"],"stop_reason":"toolUse","usage":{"input_tokens":3,"output_tokens":4,"cost_usd":0.5}}',
    ]);
    // and as written: the payload's text is the template's, byte for byte
    expect(out).toContain(
      '"payload":{"hop":1,"text":"done","tool_calls":["c1","c2"],"stop_reason":"toolUse","usage":{"input_tokens":3,"output_tokens":4,"cost_usd":0.5}}}',
    );
  });
});
