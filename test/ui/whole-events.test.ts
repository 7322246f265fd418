import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { agui, aisdk, type Codec } from '../../src/all';
import { codecFor } from '../../src/formats';
import { AGUI_DECODER_SHORTCUTS, AGUI_WHOLE_EVENTS } from '../../src/formats/ag-ui/decode';
import { usageFromWire, wholeRoundUsage } from '../../src/formats/ag-ui/wire';
import { AISDK_DECODER_SHORTCUTS, AISDK_WHOLE_EVENTS } from '../../src/formats/ai-sdk/decode';
import { listFixtures, loadFixture } from '../../src/node/fixtures';
import { FUZZ_RUNS } from '../runs';
import { decodeSwitched } from './decode-switch';

// The UI decoders build their frequent events (text deltas, message and step bounds, a call's
// argument chunks, start and end, a carried tool output, a step's end) whole, each in one literal
// with its envelope, beside the general path that adds the envelope to a literal afterwards
// (docs/performance.md, "AG-UI and AI SDK codecs"). Switched off, only the general path runs.
// These properties hold the two equal on random streams of records spelled as the writers spell
// them and near them (a time, a subagent, extra or other metadata, other roles, fields missing or
// of other types, other key orders): the same events (the same JSON text, own `undefined` fields
// included, so the same fields in the same order), the same diagnostics, the same bytes written
// back, in both framings and every chunking.

type Row = Record<string, unknown>;

const text = fc.oneof(
  fc.constantFrom('', 'a', 'hi "there"\n', '\\', '\u2028', '😀'),
  fc.string({ maxLength: 8 }),
);
const id = fc.constantFrom('m1', 'm2', 'c1', 'c2');
const call = fc.constantFrom('c1', 'c2', 'c3');
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const odd = fc.constantFrom<unknown>(undefined, null, 5, true, 'x', {});

// What any record may carry beside its own fields: a time, a subagent's run, other metadata.
const extra = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Row>({}) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        timestamp: fc.oneof(fc.nat(), fc.constant<unknown>('7')),
        subagentRunId: fc.oneof(fc.constantFrom('k1', 'k2'), fc.constant<unknown>(3)),
      },
      { requiredKeys: [] },
    ),
  },
);

const meta = (fields: fc.Arbitrary<Row>) =>
  fields
    .map((m) => ({ agentwire: m }) as Row)
    .chain((m) => fc.constantFrom<Row | undefined>(m, m, undefined));

// The one-entry usage a round end's whole path builds in one literal (`wholeRoundUsage`), and
// every near one the general path must read instead.
const usage = fc.constantFrom<unknown>(
  [{ inputTokens: 10, outputTokens: 2, totalTokens: 12 }],
  [{ inputTokens: 10, outputTokens: 2 }],
  [{ outputTokens: 2, inputTokens: 10 }],
  [{ inputTokens: 10, outputTokens: 2, reasoningTokens: 1 }],
  [{ inputTokens: 10, outputTokens: 2, reasoningTokens: null }],
  [{ inputTokens: 10, outputTokens: 2, cachedInputTokens: 3 }],
  [{ inputTokens: 10, outputTokens: 2, cacheWriteInputTokens: 4 }],
  [{ inputTokens: 10, outputTokens: 2, model: 'm1' }],
  [{ inputTokens: -1, outputTokens: 2 }],
  [{ inputTokens: 1.5, outputTokens: 2 }],
  [{ inputTokens: 10, outputTokens: '2' }],
  [{ inputTokens: 2 ** 53, outputTokens: 2 }],
  [
    { inputTokens: 10, outputTokens: 2 },
    { inputTokens: 1, outputTokens: 1 },
  ],
  [5],
  [null],
  [{ inputTokens: 1 }],
  [],
  'x',
  undefined,
);

const endMeta = meta(
  fc.record(
    {
      argsSummary: fc.oneof(text, text, odd),
      kind: fc.oneof(text, odd),
      server: text,
      command: text,
      startedAt: fc.oneof(fc.nat(), odd),
    },
    { requiredKeys: [] },
  ),
);

const resultMeta = meta(
  fc.record(
    {
      ok: fc.oneof(fc.boolean(), odd),
      error: odd,
      result: odd,
      exitCode: fc.oneof(fc.integer(), odd),
      denied: fc.oneof(fc.boolean(), odd),
      filesChanged: fc.constantFrom<unknown>(['a'], 'a'),
      startedAt: fc.oneof(fc.nat(), odd),
      endedAt: fc.oneof(fc.nat(), odd),
    },
    { requiredKeys: [] },
  ),
);

// A carried tool output: as the writers spell it, and near it.
const carriedOutput = fc.oneof(
  fc.record({ call, text }),
  fc.record({ text, call }),
  fc.record({ call, text, stream: fc.constantFrom('stdout', 'stderr', 'x') }),
  fc.record({ call, text: odd }),
  fc.record({ call, text, ts: fc.nat() }),
  fc.constantFrom<unknown>({ call: 'c1', text: 'a', lane: 'k1' }, null, 'x'),
);

const withMeta = (r: Row, m: Row | undefined, key = 'metadata'): Row =>
  m === undefined ? r : { ...r, [key]: m };

// One call whole, as a writer writes it: start, arguments, end, result.
const aguiCall: fc.Arbitrary<Row[]> = fc
  .tuple(call, fc.constantFrom('{}', '{"a":1}', 'x'), endMeta, resultMeta, text)
  .map(([c, delta, end, result, content]) => [
    { type: 'TOOL_CALL_START', toolCallId: c, toolCallName: 'read' },
    { type: 'TOOL_CALL_ARGS', toolCallId: c, delta },
    withMeta({ type: 'TOOL_CALL_END', toolCallId: c }, end),
    withMeta({ type: 'TOOL_CALL_RESULT', messageId: 'm9', toolCallId: c, content }, result),
  ]);

const aguiRecord: fc.Arbitrary<Row> = fc
  .tuple(
    fc.oneof(
      { weight: 1, arbitrary: fc.record({ type: fc.constant('RUN_STARTED'), threadId: id, runId: id }) },
      {
        weight: 1,
        arbitrary: fc.record(
          { type: fc.constant('RUN_FINISHED'), threadId: id, runId: id, result: maybe(text) },
          { requiredKeys: ['type', 'threadId', 'runId'] },
        ),
      },
      {
        weight: 3,
        arbitrary: fc.record({
          type: fc.constant('STEP_STARTED'),
          stepName: fc.constantFrom('round 1', 'round 2', 'round 0', 'plan'),
        }),
      },
      {
        weight: 3,
        arbitrary: fc.record(
          {
            type: fc.constant('STEP_FINISHED'),
            stepName: fc.constantFrom('round 1', 'plan'),
            metadata: meta(
              fc.record(
                {
                  stopReason: fc.oneof(text, odd),
                  usage,
                  costUsd: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), odd),
                  model: fc.oneof(text, odd),
                  closing: fc.boolean(),
                },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: ['type', 'stepName'] },
        ),
      },
      {
        weight: 3,
        arbitrary: fc.record(
          {
            type: fc.constant('TEXT_MESSAGE_START'),
            messageId: id,
            role: fc.constantFrom('assistant', 'user'),
          },
          { requiredKeys: ['type', 'messageId'] },
        ),
      },
      {
        weight: 8,
        arbitrary: fc.record(
          { type: fc.constantFrom('TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CHUNK'), messageId: id, delta: text },
          { requiredKeys: ['type', 'delta'] },
        ),
      },
      { weight: 3, arbitrary: fc.record({ type: fc.constant('TEXT_MESSAGE_END'), messageId: id }) },
      {
        weight: 3,
        arbitrary: fc.record({
          type: fc.constant('TOOL_CALL_START'),
          toolCallId: call,
          toolCallName: fc.constantFrom('read', ''),
        }),
      },
      {
        weight: 3,
        arbitrary: fc.record(
          {
            type: fc.constant('TOOL_CALL_ARGS'),
            toolCallId: call,
            delta: fc.constantFrom('{}', '{"a":1}', '{"a"', '[1]', '', 'x'),
            toolCallName: fc.constantFrom('read', 'write'),
          },
          { requiredKeys: ['type', 'toolCallId', 'delta'] },
        ),
      },
      {
        weight: 3,
        arbitrary: fc.record(
          {
            type: fc.constant('TOOL_CALL_END'),
            toolCallId: call,
            metadata: endMeta,
          },
          { requiredKeys: ['type', 'toolCallId'] },
        ),
      },
      {
        weight: 3,
        arbitrary: fc.record(
          {
            type: fc.constant('TOOL_CALL_RESULT'),
            messageId: id,
            toolCallId: call,
            content: fc.oneof(text, fc.constant<unknown>([{ type: 'text', text: 'a' }]), odd),
            metadata: resultMeta,
          },
          { requiredKeys: ['type', 'toolCallId', 'messageId'] },
        ),
      },
      {
        weight: 4,
        arbitrary: fc.record({
          type: fc.constant('CUSTOM'),
          name: fc.constantFrom('agentwire.tool.output', 'agentwire.tool.output', 'agentwire.usage', 'other'),
          value: carriedOutput,
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          type: fc.constant('SUBAGENT_STARTED'),
          subagentRunId: fc.constantFrom('k1', 'k2'),
          name: fc.constant('helper'),
        }),
      },
    ),
    extra,
    fc.boolean(),
  )
  .map(([r, x, before]) => {
    // Own `undefined` fields are not JSON: leave them out; the extra fields go before or after.
    const own: Row = {};
    for (const [k, v] of Object.entries(r)) if (v !== undefined) own[k] = v;
    return before ? { ...x, ...own } : { ...own, ...x };
  });

const toolMetadata = fc.oneof(endMeta, resultMeta, fc.constantFrom<Row | undefined>({ other: 1 }, undefined));

const aisdkRecord: fc.Arbitrary<Row> = fc
  .oneof(
    {
      weight: 1,
      arbitrary: fc.record({ type: fc.constant('start'), messageId: id }, { requiredKeys: ['type'] }),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('finish', 'abort') }) },
    { weight: 3, arbitrary: fc.record({ type: fc.constantFrom('start-step', 'finish-step') }) },
    { weight: 3, arbitrary: fc.record({ type: fc.constantFrom('text-start', 'text-end'), id }) },
    {
      weight: 8,
      arbitrary: fc.record(
        { type: fc.constantFrom('text-delta', 'reasoning-delta'), id, delta: fc.oneof(text, text, odd) },
        { requiredKeys: ['type', 'id'] },
      ),
    },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          type: fc.constant('tool-input-available'),
          toolCallId: call,
          toolName: fc.constantFrom('read', ''),
          input: fc.constantFrom<unknown>({}, { a: 1 }, [1], 'x'),
          toolMetadata: endMeta,
        },
        { requiredKeys: ['type', 'toolCallId', 'toolName'] },
      ),
    },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          type: fc.constantFrom(
            'tool-output-available',
            'tool-output-error',
            'tool-output-denied',
            'tool-input-error',
          ),
          toolCallId: call,
          toolName: fc.constantFrom('read', 'write'),
          output: fc.oneof(text, odd),
          errorText: fc.oneof(text, text, odd),
          preliminary: fc.boolean(),
          toolMetadata,
        },
        { requiredKeys: ['type', 'toolCallId'] },
      ),
    },
    {
      // A said error, then the run's failure restating it: the chunk is held for the next event.
      weight: 2,
      arbitrary: fc.constantFrom<Row>(
        { type: 'data-agentwire.error', data: { message: 'boom', fatal: false } },
        { type: 'error', errorText: 'boom' },
      ),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        type: fc.constantFrom(
          'data-agentwire.tool.output',
          'data-agentwire.tool.output',
          'data-agentwire.usage',
          'data-x',
        ),
        data: carriedOutput,
      }),
    },
  )
  .map((r) => {
    // Own `undefined` fields are not JSON: leave them out.
    const own: Row = {};
    for (const [k, v] of Object.entries(r)) if (v !== undefined) own[k] = v;
    return own;
  });

// One call whole, as the writer writes it: its input, then its output or error.
const aisdkCall: fc.Arbitrary<Row[]> = fc
  .tuple(call, endMeta, fc.boolean(), text)
  .map(([c, end, ok, output]) => [
    withMeta(
      { type: 'tool-input-available', toolCallId: c, toolName: 'read', input: {} },
      end,
      'toolMetadata',
    ),
    ok
      ? { type: 'tool-output-available', toolCallId: c, output }
      : { type: 'tool-output-error', toolCallId: c, errorText: output },
  ]);

// A stream opens a run and a step most of the time, so the records land where the literals apply.
const stream = (record: fc.Arbitrary<Row>, group: fc.Arbitrary<Row[]>, opening: Row[]) =>
  fc
    .tuple(
      fc.boolean(),
      fc.array(fc.oneof({ weight: 4, arbitrary: record.map((r) => [r]) }, group), {
        minLength: 1,
        maxLength: 16,
      }),
    )
    .map(([open, groups]) => (open ? [...opening, ...groups.flat()] : groups.flat()));

const CASES: Array<{
  name: string;
  codec: Codec;
  flag: { enabled: boolean };
  /** The delta shortcut's switch: its record, built in one literal, is held to JSON.parse's too. */
  shortcut: { enabled: boolean };
  record: fc.Arbitrary<Row>;
  group: fc.Arbitrary<Row[]>;
  opening: Row[];
}> = [
  {
    name: 'ag-ui',
    codec: agui,
    flag: AGUI_WHOLE_EVENTS,
    shortcut: AGUI_DECODER_SHORTCUTS,
    record: aguiRecord,
    group: aguiCall,
    opening: [
      { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
      { type: 'STEP_STARTED', stepName: 'round 1' },
    ],
  },
  {
    name: 'ai-sdk',
    codec: aisdk,
    flag: AISDK_WHOLE_EVENTS,
    shortcut: AISDK_DECODER_SHORTCUTS,
    record: aisdkRecord,
    group: aisdkCall,
    opening: [{ type: 'start', messageId: 'r1' }, { type: 'start-step' }],
  },
];

describe.each(CASES)(
  '$name decoder: whole events and the general path',
  ({ codec, flag, shortcut, record, group, opening }) => {
    test('give the same events, diagnostics and written bytes, in both framings and every chunking', () => {
      fc.assert(
        fc.property(
          stream(record, group, opening),
          fc.boolean(),
          fc.array(fc.nat(), { maxLength: 3 }),
          (rows, sse, cuts) => {
            const lines = rows.map((r) => JSON.stringify(r));
            const wire = sse ? lines.map((l) => `data: ${l}\n\n`).join('') : `${lines.join('\n')}\n`;
            const bytes = new TextEncoder().encode(wire);
            const whole = decodeSwitched(codec, flag, true, bytes, cuts);
            expect(whole).toEqual(decodeSwitched(codec, flag, false, bytes, cuts));
            // The delta shortcut's record (in the hints) has JSON.parse's keys in JSON.parse's order.
            expect(whole).toEqual(decodeSwitched(codec, shortcut, false, bytes, cuts));
          },
        ),
        { numRuns: FUZZ_RUNS * 3 },
      );
    });

    test('give the same events on every fixture, and on every fixture of every format written in it', () => {
      for (const f of listFixtures()) {
        const fixture = loadFixture(f.format, f.name);
        const bytes =
          f.format === codec.format
            ? fixture.bytes
            : new TextEncoder().encode(codec.stringify(codecFor(f.format)!.parse(fixture.bytes).events));
        expect(decodeSwitched(codec, flag, true, bytes, [])).toEqual(
          decodeSwitched(codec, flag, false, bytes, []),
        );
      }
    });
  },
);

// A round end's usage built whole (`wholeRoundUsage`) is the general path's (`usageFromWire`, the
// cost set last when it is a number) wherever it gives one: the same keys in the same order, the
// same values. The entries are drawn from every key `usageFromWire` reads, with counts of every
// kind, so each of the whole path's tests meets a usage it must turn down.
test('a round end’s usage whole is the one usageFromWire gives, with the cost last', () => {
  const count = fc.constantFrom<unknown>(0, 1, 10, 2.5, -1, 2 ** 53, '3', null, undefined);
  const valid = fc.constantFrom<unknown>(0, 1, 10);
  // An entry of input, output and total tokens, then at most one more key (or a count changed).
  const entry = fc.oneof(
    fc
      .tuple(
        valid,
        valid,
        fc.option(
          fc.constantFrom(
            'reasoningTokens',
            'cachedInputTokens',
            'cacheWriteInputTokens',
            'model',
            'inputTokens',
            'outputTokens',
          ),
        ),
        fc.oneof(count, fc.constant<unknown>('m1')),
      )
      .map(([i, o, key, v]) => {
        const e: Row = { inputTokens: i, outputTokens: o, totalTokens: 1 };
        if (key !== null) e[key] = v;
        return e;
      }),
    fc.constantFrom<unknown>(5, null, 'x', []),
  );
  const usage = fc.oneof(
    { weight: 4, arbitrary: entry.map((e) => [e]) },
    { weight: 1, arbitrary: fc.array(entry, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, 'x', {}) },
  );
  const cost = fc.constantFrom<unknown>(undefined, 0, 0.5, -1, '0.5', null);
  fc.assert(
    fc.property(usage, cost, (u, c) => {
      const whole = wholeRoundUsage(u, c);
      if (whole === undefined) return;
      const general = usageFromWire(u);
      expect(general).toBeDefined();
      if (typeof c === 'number') general!.costUsd = c;
      expect(JSON.stringify(whole)).toBe(JSON.stringify(general));
      expect(Object.keys(whole)).toEqual(Object.keys(general!));
    }),
    { numRuns: FUZZ_RUNS * 10 },
  );
});
