import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { agui, aisdk, type Codec, type Diagnostic } from '../../src/all';
import { codecFor } from '../../src/formats';
import { AGUI_WRITER_SHORTCUTS } from '../../src/formats/ag-ui/encode';
import { usageEntryJson, usageToWire } from '../../src/formats/ag-ui/wire';
import { AISDK_WRITER_SHORTCUTS } from '../../src/formats/ai-sdk/encode';
import { carriedValue, carriesCallText } from '../../src/framing/carry';
import type { AgentEvent } from '../../src/model';
import { listFixtures, loadFixture } from '../../src/node/fixtures';
import { FUZZ_RUNS } from '../runs';

// The UI writers' shortcuts (records written in pieces instead of one object, text deltas of an
// open message without the general dispatch) sit beside the general path, and a switch turns them
// off: with and without them, any events must give the same bytes in both framings, the same
// loss diagnostics and the same refusals. Events: random streams of every type the writers map
// (on lanes, with odd texts, times, provenance of both formats, fields missing or of other
// types), and the events of every fixture of every format.

const CODECS: Array<[string, Codec, { enabled: boolean }]> = [
  ['ag-ui', agui, AGUI_WRITER_SHORTCUTS],
  ['ai-sdk', aisdk, AISDK_WRITER_SHORTCUTS],
];

const text = fc.oneof(
  fc.constantFrom('', 'a', 'hi "there"\n', '\\', '\u2028', '\ud800', '😀', 'x'.repeat(40)),
  fc.string({ maxLength: 6, unit: 'grapheme' }),
  fc.string({ maxLength: 4, unit: 'binary' }),
);
const id = fc.constantFrom('m1', 'm2', 'c1', 'c2', 'k1', 'a"b');
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const odd = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.boolean(), text);

const envelope = fc.record(
  {
    session: id,
    run: fc.constantFrom('r1', 'r2'),
    round: fc.nat(4),
    ts: fc.oneof(fc.integer({ min: 0, max: 2 ** 45 }), fc.double({ noNaN: true }), fc.constant(1.5)),
    lane: fc.constantFrom('k1', 'k2'),
    seq: fc.nat(),
    workspace: id,
    provenance: fc.oneof(
      fc.constant({ format: 'hep', line: 1, offset: 0 }),
      fc.constant({ format: 'ag-ui', line: 1, offset: 0 }),
      fc.constant({ format: 'ai-sdk', line: 1, offset: 0 }),
      fc.constant({ format: 'ai-sdk', line: 1, offset: 0, synthetic: true }),
    ),
  },
  { requiredKeys: [] },
);

const usage = fc.record(
  { input: fc.nat(), output: fc.nat(), costUsd: fc.double({ noNaN: true, min: 0, max: 1 }) },
  {
    requiredKeys: [],
  },
);

const body: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      { type: fc.constant('text.delta'), text, message: maybe(id) },
      { requiredKeys: ['type', 'text'] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('text.delta'), text: odd }) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        type: fc.constant('message.start'),
        role: fc.constant('assistant'),
        message: maybe(fc.oneof(id, odd)),
      },
      { requiredKeys: ['type', 'role'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { type: fc.constant('message.end'), message: maybe(id) },
      { requiredKeys: ['type'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { type: fc.constant('reasoning.delta'), text, message: maybe(id) },
      { requiredKeys: ['type', 'text'] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('round.start') }) },
  {
    weight: 1,
    arbitrary: fc.record(
      { type: fc.constant('round.end'), message: maybe(text), usage: maybe(usage), stopReason: maybe(text) },
      { requiredKeys: ['type'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('run.start'), input: maybe(text) }, { requiredKeys: ['type'] }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        type: fc.constant('run.end'),
        status: fc.constantFrom('completed', 'failed', 'cancelled', 'incomplete'),
        usage: maybe(usage),
        answer: maybe(text),
      },
      { requiredKeys: ['type', 'status'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { type: fc.constant('tool.args.delta'), call: id, name: maybe(text), text },
      { requiredKeys: ['type', 'call', 'text'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        type: fc.constant('tool.start'),
        call: id,
        name: text,
        args: maybe(
          fc.dictionary(fc.string({ maxLength: 2 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
        ),
        argsSummary: maybe(text),
        kind: maybe(fc.constantFrom('shell', 'read')),
        server: maybe(text),
        command: maybe(fc.oneof(text, odd)),
        startedAt: maybe(fc.integer()),
      },
      { requiredKeys: ['type', 'call', 'name'] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('tool.output'), call: id, text }) },
  // Near the carried output the writers spell (call then text, two strings): keys moved, an
  // extra or missing key, other types.
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.record(
          { call: fc.oneof(id, odd), text: fc.oneof(text, odd), stream: fc.constantFrom('stdout', 'stderr') },
          { requiredKeys: [] },
        ),
        fc.boolean(),
      )
      .map(([o, reversed]) => {
        const keys = Object.keys(o);
        if (reversed) keys.reverse();
        const e: Record<string, unknown> = { type: 'tool.output' };
        for (const k of keys) e[k] = o[k as keyof typeof o];
        return e;
      }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        type: fc.constant('tool.end'),
        call: id,
        ok: fc.boolean(),
        text: maybe(fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: odd })),
        error: maybe(odd),
        result: maybe(fc.jsonValue({ maxDepth: 2 })),
        exitCode: maybe(fc.integer()),
        denied: maybe(fc.boolean()),
        filesChanged: maybe(fc.array(text, { maxLength: 2 })),
        startedAt: maybe(fc.integer()),
        endedAt: maybe(fc.integer()),
      },
      { requiredKeys: ['type', 'call', 'ok'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      { type: fc.constant('approval.request'), approval: id, call: maybe(id), title: maybe(text) },
      { requiredKeys: ['type', 'approval'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('approval.resolve'),
      approval: id,
      decision: fc.constantFrom('allow', 'deny', 'cancel'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      { type: fc.constant('child.start'), child: fc.constantFrom('k1', 'k2'), name: maybe(text) },
      { requiredKeys: ['type', 'child'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('child.end'),
      child: fc.constantFrom('k1', 'k2'),
      status: fc.constantFrom('completed', 'failed'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('error'), message: text, fatal: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('notice'), kind: fc.constant('info'), message: text }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('session.start') }) },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('unknown'), record: fc.jsonValue({ maxDepth: 2 }) }),
  },
);

const event: fc.Arbitrary<AgentEvent> = fc
  .tuple(body, envelope, fc.boolean())
  .map(([b, env, withEnv]) => ({ ...b, ...(withEnv ? env : {}) }) as unknown as AgentEvent);

interface Outcome {
  text: string;
  diagnostics: Diagnostic[];
  error?: string;
}

function write(
  codec: Codec,
  events: readonly AgentEvent[],
  framing: 'sse' | 'jsonl' | undefined,
  idSource?: () => string,
): Outcome {
  const diagnostics: Diagnostic[] = [];
  let n = 0;
  const e = codec.createEncoder({
    onDiagnostic: (d: Diagnostic) => diagnostics.push(d),
    idSource: idSource ?? (() => `id-${++n}`),
    ...(framing === undefined ? {} : { framing }),
  } as object);
  let text = '';
  try {
    for (const ev of events) text += e.write(ev);
    text += e.end();
  } catch (err) {
    return { text, diagnostics, error: (err as Error).message };
  }
  return { text, diagnostics };
}

function both(flag: { enabled: boolean }, run: () => Outcome): [Outcome, Outcome] {
  const was = flag.enabled;
  try {
    flag.enabled = true;
    const on = run();
    flag.enabled = false;
    return [on, run()];
  } finally {
    flag.enabled = was;
  }
}

test('carriesCallText says exactly when the carried value is {call, text}, two strings, in that order', () => {
  fc.assert(
    fc.property(event, (e) => {
      const value = carriedValue(e);
      const keys = Object.keys(value);
      const expected =
        keys.length === 2 &&
        keys[0] === 'call' &&
        keys[1] === 'text' &&
        typeof value.call === 'string' &&
        typeof value.text === 'string';
      expect(carriesCallText(e)).toBe(expected);
    }),
    { numRuns: FUZZ_RUNS * 5 },
  );
});

describe.each(CODECS)('%s writer shortcuts', (_name, codec, flag) => {
  test('random events: the same bytes, losses and refusals with and without them', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 30 }),
        fc.constantFrom('sse', 'jsonl', undefined),
        (events, framing) => {
          const [on, off] = both(flag, () => write(codec, events, framing));
          expect(on).toEqual(off);
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('the shortcuts are taken (a long text is mostly deltas of an open message)', () => {
    const events: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'message.start', role: 'assistant', message: 'm' },
    ];
    for (let i = 0; i < 5; i++) events.push({ type: 'text.delta', text: `t${i}`, message: 'm' });
    const [on, off] = both(flag, () => write(codec, events, 'jsonl'));
    expect(on).toEqual(off);
    expect(on.text.split('\n').filter((l) => l.includes('t3')).length).toBe(1);
  });

  test('every fixture of every format: the same bytes with and without them', () => {
    for (const info of listFixtures()) {
      const fixture = loadFixture(info.format, info.name);
      const events = codecFor(info.format)!.parse(fixture.bytes).events;
      // As read, and as JSON copies (no kept records: events from another format).
      const copies = JSON.parse(JSON.stringify(events)) as AgentEvent[];
      for (const e of copies) delete e.provenance;
      for (const list of [events, copies]) {
        for (const framing of ['sse', 'jsonl'] as const) {
          const [on, off] = both(flag, () => write(codec, list, framing));
          expect(on, `${info.format}/${info.name}`).toEqual(off);
        }
      }
    }
  });
});

// AG-UI's round end: its metadata (stop reason, the usage array, cost, model) skips
// assertEncodable's walk when every value taken from the event is a plain primitive
// (`roundMetaPlain`); anything else must be refused, or passed, exactly as the walk does.
const oddValue = fc.oneof(
  odd,
  fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, -0, 1.5, 2 ** 60, 10n, [], {}),
  fc.constantFrom<unknown>([1, Number.NaN], { a: { b: Number.NEGATIVE_INFINITY } }, new Date(0), () => 1),
  fc.jsonValue({ maxDepth: 2 }),
);
const roundUsage = fc.record(
  {
    input: fc.oneof(fc.nat(), oddValue),
    output: fc.oneof(fc.nat(), oddValue),
    reasoning: fc.oneof(fc.nat(), oddValue),
    cacheRead: fc.nat(),
    costUsd: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), oddValue),
    model: fc.oneof(text, oddValue),
    byModel: fc.dictionary(
      fc.constantFrom('m1', 'm2', 'a"b'),
      fc.record({ input: fc.oneof(fc.nat(), oddValue), output: fc.nat() }, { requiredKeys: [] }),
      { maxKeys: 2 },
    ),
  },
  { requiredKeys: [] },
);
const roundEnd = fc
  .tuple(
    fc.record(
      {
        stopReason: fc.oneof(text, oddValue),
        usage: roundUsage,
        model: fc.oneof(text, oddValue),
        message: text,
      },
      { requiredKeys: [] },
    ),
    envelope,
    fc.boolean(),
  )
  .map(
    ([b, env, withEnv]) => ({ type: 'round.end', ...b, ...(withEnv ? env : {}) }) as unknown as AgentEvent,
  );

test('ag-ui round ends: the same bytes, losses and refusals with and without the shortcuts', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof({ weight: 3, arbitrary: roundEnd }, { weight: 2, arbitrary: event }), {
        maxLength: 8,
      }),
      fc.constantFrom('sse', 'jsonl'),
      (events, framing) => {
        const list: AgentEvent[] = [{ type: 'run.start' }, { type: 'round.start' }, ...events];
        const [on, off] = both(AGUI_WRITER_SHORTCUTS, () => write(agui, list, framing));
        expect(on).toEqual(off);
      },
    ),
    { numRuns: FUZZ_RUNS * 5 },
  );
});

// AG-UI's call starts and results: their metadata spelled (`callMetaJson`, the results' `ok`)
// when every value is a string, a finite number or absent; anything else takes the object and
// the walk, which refuses what cannot be written. Values here are drawn from the odd ones too.
const callStart = fc
  .tuple(
    fc.record(
      {
        call: id,
        name: text,
        argsSummary: fc.oneof(text, oddValue),
        kind: fc.oneof(text, oddValue),
        server: fc.oneof(text, oddValue),
        command: fc.oneof(text, oddValue),
        startedAt: fc.oneof(fc.integer(), fc.double(), oddValue),
      },
      { requiredKeys: ['call'] },
    ),
    envelope,
    fc.boolean(),
  )
  .map(
    ([b, env, withEnv]) => ({ type: 'tool.start', ...b, ...(withEnv ? env : {}) }) as unknown as AgentEvent,
  );
const callEnd = fc
  .tuple(
    fc.record(
      {
        call: fc.oneof(id, oddValue),
        ok: fc.oneof(fc.boolean(), oddValue),
        // Not the odd values: a BigInt text with an unwritable metadata value is refused by both
        // paths, each naming what it met first (the general emit stringifies the fields first).
        text: fc.oneof(text, odd),
        error: oddValue,
        endedAt: fc.oneof(fc.integer(), oddValue),
      },
      { requiredKeys: ['call', 'ok'] },
    ),
    envelope,
    fc.boolean(),
  )
  .map(([b, env, withEnv]) => ({ type: 'tool.end', ...b, ...(withEnv ? env : {}) }) as unknown as AgentEvent);

test('ag-ui call starts and results: the same bytes, losses and refusals with and without the shortcuts', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          { weight: 3, arbitrary: callStart },
          { weight: 3, arbitrary: callEnd },
          { weight: 2, arbitrary: event },
        ),
        { maxLength: 8 },
      ),
      fc.constantFrom('sse', 'jsonl'),
      fc.boolean(),
      (events, framing, ids) => {
        // An id source that gives other values than strings too: the result's message id is checked.
        let n = 0;
        const idSource = ids ? () => (n++ % 3 === 2 ? (n as unknown as string) : `i${n}`) : undefined;
        const list: AgentEvent[] = [{ type: 'run.start' }, { type: 'round.start' }, ...events];
        const [on, off] = both(AGUI_WRITER_SHORTCUTS, () => {
          n = 0;
          return write(agui, list, framing, idSource);
        });
        expect(on).toEqual(off);
      },
    ),
    { numRuns: FUZZ_RUNS * 5 },
  );
});

// The AI SDK's call starts: the input chunk of a call with no metadata but a string summary is
// spelled without a metadata object; every other one (odd values included) takes the object.
test('ai-sdk call starts: the same bytes, losses and refusals with and without the shortcuts', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          { weight: 3, arbitrary: callStart },
          // No metadata but the summary, of any value: the case spelled, and its near misses.
          {
            weight: 3,
            arbitrary: fc
              .record(
                { call: id, name: text, argsSummary: fc.oneof(text, oddValue) },
                { requiredKeys: ['call', 'name'] },
              )
              .map((b) => ({ type: 'tool.start', ...b }) as unknown as AgentEvent),
          },
          { weight: 1, arbitrary: event },
        ),
        { maxLength: 8 },
      ),
      fc.constantFrom('sse', 'jsonl'),
      (events, framing) => {
        const list: AgentEvent[] = [{ type: 'run.start' }, { type: 'round.start' }, ...events];
        const [on, off] = both(AISDK_WRITER_SHORTCUTS, () => write(aisdk, list, framing));
        expect(on).toEqual(off);
      },
    ),
    { numRuns: FUZZ_RUNS * 5 },
  );
});

test('usageEntryJson is JSON.stringify(usageToWire(u)) or nothing, and spells every plain one-entry usage', () => {
  fc.assert(
    fc.property(roundUsage, fc.boolean(), (u, plainOnly) => {
      const usage = plainOnly
        ? { input: u.input, output: u.output, reasoning: u.reasoning, cacheRead: u.cacheRead }
        : u;
      const spelled = usageEntryJson(usage as never);
      if (spelled !== undefined) expect(spelled).toBe(JSON.stringify(usageToWire(usage as never)));
      const plain = (v: unknown) =>
        v === undefined || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);
      const expected =
        (usage as { byModel?: unknown }).byModel === undefined &&
        ['input', 'output', 'reasoning', 'cacheRead'].every((k) =>
          plain((usage as Record<string, unknown>)[k]),
        ) &&
        ((usage as { model?: unknown }).model === undefined ||
          typeof (usage as { model?: unknown }).model === 'string');
      expect(spelled !== undefined).toBe(expected);
    }),
    { numRuns: FUZZ_RUNS * 5 },
  );
});
