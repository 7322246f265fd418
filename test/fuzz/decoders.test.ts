import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import { type Diagnostic, isAgentwireError } from '../../src/diagnostics';
import { agui } from '../../src/formats/ag-ui/index';
import { aisdk } from '../../src/formats/ai-sdk/index';
import { amp } from '../../src/formats/amp/index';
import { claude } from '../../src/formats/claude/index';
import { codex } from '../../src/formats/codex/index';
import { copilot } from '../../src/formats/copilot/index';
import { cursor } from '../../src/formats/cursor/index';
import { gemini } from '../../src/formats/gemini/index';
import { hep } from '../../src/formats/hep/index';
import { highbar } from '../../src/formats/highbar/index';
import { nativeharness } from '../../src/formats/nativeharness/index';
import { opencode } from '../../src/formats/opencode/index';
import { LineSplitter } from '../../src/framing/lines';
import { SseReader } from '../../src/framing/sse';
import type { AgentEvent } from '../../src/model';
import { chunkAt } from '../golden';
import { FUZZ_RUNS as RUNS } from '../runs';

// Fuzzing every decoder: arbitrary bytes, arbitrary JSON records, mutated fixtures. The promise:
// no exception escapes (only AgentwireError, only in strict mode), every diagnostic names a line
// and a byte offset inside the input, nothing depends on chunking, a line is never dropped without
// an event or a diagnostic, and the events of intact lines still arrive.
// FUZZ_RUNS sets the case count (default 200 for CI; `npm run fuzz` runs 20 000).

const HEAVY = Math.max(20, Math.floor(RUNS / 4));

// biome-ignore lint/suspicious/noExplicitAny: the codecs differ only in option types
type AnyCodec = Codec<any, any>;

interface Target {
  name: string;
  codec: AnyCodec;
  options: Record<string, unknown>;
}

const targets: Target[] = [
  { name: 'hep', codec: hep, options: {} },
  { name: 'highbar', codec: highbar, options: {} },
  { name: 'nativeharness (detected)', codec: nativeharness, options: {} },
  { name: 'nativeharness sse', codec: nativeharness, options: { framing: 'sse' } },
  { name: 'nativeharness json', codec: nativeharness, options: { framing: 'json' } },
  { name: 'nativeharness jsonl', codec: nativeharness, options: { framing: 'jsonl' } },
  { name: 'opencode', codec: opencode, options: {} },
  { name: 'cursor', codec: cursor, options: {} },
  { name: 'codex', codec: codex, options: {} },
  { name: 'gemini', codec: gemini, options: {} },
  { name: 'amp', codec: amp, options: {} },
  { name: 'copilot', codec: copilot, options: {} },
  { name: 'claude', codec: claude, options: {} },
  { name: 'ag-ui (detected)', codec: agui, options: {} },
  { name: 'ag-ui sse', codec: agui, options: { framing: 'sse' } },
  { name: 'ag-ui jsonl', codec: agui, options: { framing: 'jsonl' } },
  { name: 'ai-sdk (detected)', codec: aisdk, options: {} },
  { name: 'ai-sdk sse', codec: aisdk, options: { framing: 'sse' } },
  { name: 'ai-sdk jsonl', codec: aisdk, options: { framing: 'jsonl' } },
];

interface Run {
  events: AgentEvent[];
  diagnostics: Diagnostic[];
}

function run(t: Target, chunks: readonly Uint8Array[], extra: Record<string, unknown> = {}): Run {
  const diagnostics: Diagnostic[] = [];
  const decoder = t.codec.createDecoder({
    ...t.options,
    ...extra,
    onDiagnostic: (d: Diagnostic) => diagnostics.push(d),
  });
  const events: AgentEvent[] = [];
  for (const c of chunks) events.push(...decoder.push(c));
  events.push(...decoder.end());
  return { events, diagnostics };
}

function assertPlaces(r: Run, size: number): void {
  for (const d of r.diagnostics) {
    expect(Number.isInteger(d.line) && d.line! >= 1, d.message).toBe(true);
    expect(Number.isInteger(d.offset) && d.offset! >= 0 && d.offset! <= size, d.message).toBe(true);
    expect(d.message).toMatch(/\S/);
  }
  for (const e of r.events) {
    const p = e.provenance;
    expect(p).toBeDefined();
    expect(Number.isInteger(p!.line) && p!.line >= 1).toBe(true);
    expect(Number.isInteger(p!.offset) && p!.offset >= 0 && p!.offset <= size).toBe(true);
  }
}

const enc = new TextEncoder();
const TOKENS = [
  '{',
  '}',
  '[',
  ']',
  '"',
  '\\',
  ':',
  ',',
  '\n',
  '\r',
  '\r\n',
  ' ',
  'data: ',
  'id: ',
  'event: ',
  'retry: ',
  '\uFEFF',
  '{"type":"',
  '"turn_id":',
  '"seq":',
  '9007199254740993',
  '1e400',
  '-0',
  '"__proto__":',
  '\\u0000',
  '\\ud800',
  'é',
  '😀',
  '\u2028',
  'null',
  'true',
].map((s) => enc.encode(s));
const BAD = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xef, 0xbb], [0xf4, 0x90, 0x80, 0x80], [0xe6]].map(
  (b) => Uint8Array.from(b),
);

/** Bytes biased toward what breaks parsers: structure, terminators, bad UTF-8, big numbers. */
const hostileBytes = fc
  .array(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...TOKENS) },
      { weight: 1, arbitrary: fc.constantFrom(...BAD) },
      { weight: 2, arbitrary: fc.uint8Array({ maxLength: 8 }) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }).map((s) => enc.encode(s)) },
    ),
    { maxLength: 120 },
  )
  .map((parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  });

const cuts = fc.array(fc.nat({ max: 2000 }), { maxLength: 10 });

describe('fuzz: arbitrary bytes', () => {
  for (const t of targets) {
    test(`${t.name}: no exception, every diagnostic placed, chunking-independent`, () => {
      fc.assert(
        fc.property(hostileBytes, cuts, (bytes, at) => {
          const whole = run(t, [bytes]);
          assertPlaces(whole, bytes.length);
          const chunked = run(t, chunkAt(bytes, at));
          expect(chunked.events).toEqual(whole.events);
          expect(chunked.diagnostics).toEqual(whole.diagnostics);
        }),
        { numRuns: RUNS },
      );
    });

    // What a follower of a growing file sets: a last line without its end held (or reported) and
    // a run still going at the end of the input.
    test(`${t.name}: the follower's options (live, incompleteLine hold and report) keep the same promises`, () => {
      fc.assert(
        fc.property(
          hostileBytes,
          cuts,
          fc.constantFrom('hold', 'report', 'deliver'),
          fc.boolean(),
          (bytes, at, incompleteLine, live) => {
            const extra = { incompleteLine, live };
            const whole = run(t, [bytes], extra);
            assertPlaces(whole, bytes.length);
            const chunked = run(t, chunkAt(bytes, at), extra);
            expect(chunked.events).toEqual(whole.events);
            expect(chunked.diagnostics).toEqual(whole.diagnostics);
          },
        ),
        { numRuns: HEAVY },
      );
    });

    test(`${t.name}: strict mode throws nothing but AgentwireError`, () => {
      fc.assert(
        fc.property(hostileBytes, cuts, (bytes, at) => {
          try {
            run(t, chunkAt(bytes, at), { strict: true });
          } catch (error) {
            expect(isAgentwireError(error), String(error)).toBe(true);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }

  test('line splitter and SSE reader: no exception, pending bytes never above maxLineBytes', () => {
    fc.assert(
      fc.property(hostileBytes, cuts, fc.integer({ min: 0, max: 40 }), (bytes, at, max) => {
        for (const mode of ['jsonl', 'sse'] as const) {
          const s = new LineSplitter({ line: () => {}, diagnostic: () => {} }, { mode, maxLineBytes: max });
          for (const c of chunkAt(bytes, at)) {
            s.push(c);
            expect(s.pendingBytes).toBeLessThanOrEqual(max + 1);
          }
          s.end('report');
          expect(s.bytesConsumed).toBe(bytes.length);
        }
        const r = new SseReader({ message: () => {}, diagnostic: () => {} }, { maxEventBytes: max * 3 });
        for (const c of chunkAt(bytes, at)) r.push(c);
        r.end();
      }),
      { numRuns: RUNS },
    );
  });
});

const HEP_TYPES = [
  'hep_header',
  'agent_start',
  'message_start',
  'message_delta',
  'tool_start',
  'tool_delta',
  'tool_liveness',
  'turn_done',
  'turn_error',
  'cancelled',
  'compaction_start',
  'compaction_end',
  'future_frame',
];
const HEP_KEYS = [
  'turn_id',
  'delta',
  'id',
  'name',
  'args_summary',
  'update',
  'message',
  'tool_results',
  'usage',
];
const HB_TYPES = ['hello', 'tools', 'tool', 'turn', 'future'];
const HB_KEYS = [
  'v',
  'ts',
  'fn',
  'args',
  'result',
  'error',
  'started_at',
  'ended_at',
  'context',
  'names',
  'tools',
];
const NH_TYPES = [
  'session_created',
  'turn_started',
  'progress',
  'token',
  'tool_started',
  'tool_finished',
  'done',
  'error',
  'future',
];

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1, 0, -1, 1.5, 2 ** 53, 'x', '', null, true, [], {}),
);

function record(types: string[], keys: string[]) {
  return fc
    .tuple(
      fc.constantFrom(...types),
      fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 5 })), value, { maxKeys: 6 }),
    )
    .map(([type, fields]) => JSON.stringify({ type, ...fields }));
}

const nhRecord = fc
  .tuple(
    fc.constantFrom(...NH_TYPES),
    fc.nat({ max: 50 }),
    fc.dictionary(fc.constantFrom('hop', 'text', 'status', 'call_id', 'tool', 'args', 'ok', 'input'), value, {
      maxKeys: 4,
    }),
    fc.constantFrom('"t"', 'null', '1'),
  )
  .map(
    ([type, seq, payload, turn]) =>
      `{"seq":${seq},"ts":1767225600137,"type":"${type}","workspace_id":"w","session_id":"s","turn_id":${turn},"payload":${JSON.stringify(payload)}}`,
  );

const lineTargets: Array<[string, AnyCodec, fc.Arbitrary<string>]> = [
  ['hep', hep, record(HEP_TYPES, HEP_KEYS)],
  ['highbar', highbar, record(HB_TYPES, HB_KEYS).map((s) => s.replace('{', '{"v":1,'))],
  ['nativeharness jsonl', nativeharness, nhRecord],
  [
    'gemini',
    gemini,
    record(
      ['init', 'message', 'tool_use', 'tool_result', 'error', 'result', 'future'],
      [
        'timestamp',
        'session_id',
        'model',
        'role',
        'content',
        'delta',
        'tool_name',
        'tool_id',
        'parameters',
        'status',
        'output',
        'error',
        'severity',
        'message',
        'stats',
      ],
    ),
  ],
];

describe('fuzz: arbitrary JSON records, one per line', () => {
  for (const [name, codec, arb] of lineTargets) {
    test(`${name}: every line yields an event or a diagnostic; nothing is dropped silently`, () => {
      fc.assert(
        fc.property(fc.array(arb, { minLength: 1, maxLength: 12 }), (lines) => {
          const text = `${lines.join('\n')}\n`;
          const bytes = enc.encode(text);
          const r = run({ name, codec, options: name.startsWith('native') ? { framing: 'jsonl' } : {} }, [
            bytes,
          ]);
          assertPlaces(r, bytes.length);
          const seen = new Set<number>();
          for (const e of r.events) if (e.provenance !== undefined) seen.add(e.provenance.line);
          for (const d of r.diagnostics) if (d.line !== undefined) seen.add(d.line);
          for (let i = 1; i <= lines.length; i++)
            expect(seen.has(i), `line ${i}: ${lines[i - 1]}`).toBe(true);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

// Fixtures and their framing.
interface Fixture {
  name: string;
  target: Target;
  text: string;
}
function fixtures(): Fixture[] {
  const out: Fixture[] = [];
  const add = (dir: string, ext: string, target: Target) => {
    for (const f of readdirSync(dir)
      .filter((f) => f.endsWith(`.${ext}`))
      .sort()) {
      out.push({ name: `${dir}/${f}`, target, text: readFileSync(`${dir}/${f}`, 'utf8') });
    }
  };
  add('fixtures/hep', 'jsonl', targets[0]!);
  add('fixtures/highbar', 'jsonl', targets[1]!);
  add('fixtures/nativeharness', 'sse', targets[3]!);
  add('fixtures/nativeharness', 'json', targets[4]!);
  add('fixtures/nativeharness', 'jsonl', targets[5]!);
  add('fixtures/opencode', 'jsonl', targets[6]!);
  add('fixtures/cursor', 'jsonl', targets[7]!);
  add('fixtures/codex', 'jsonl', targets[8]!);
  add('fixtures/gemini', 'jsonl', targets.find((t) => t.name === 'gemini')!);
  add('fixtures/amp', 'jsonl', targets.find((t) => t.name === 'amp')!);
  add('fixtures/copilot', 'jsonl', targets.find((t) => t.name === 'copilot')!);
  add('fixtures/claude', 'jsonl', targets.find((t) => t.name === 'claude')!);
  add('fixtures/ag-ui', 'sse', targets.find((t) => t.name === 'ag-ui sse')!);
  add('fixtures/ag-ui', 'jsonl', targets.find((t) => t.name === 'ag-ui jsonl')!);
  add('fixtures/ai-sdk', 'sse', targets.find((t) => t.name === 'ai-sdk sse')!);
  add('fixtures/ai-sdk', 'jsonl', targets.find((t) => t.name === 'ai-sdk jsonl')!);
  return out;
}
const ALL = fixtures();
const LINE_FRAMED = ALL.filter((f) => !f.name.endsWith('.json'));

// What an event says, without where it was (line numbers move when lines are inserted) and
// without highbar's line-derived call ids.
function meaning(events: AgentEvent[]): unknown[] {
  return events.map((e) => {
    const { provenance: _p, ...rest } = e as AgentEvent & { call?: string };
    if (e.provenance?.format === 'highbar') delete (rest as { call?: string }).call;
    // OpenCode rounds are counted steps and a round's message is its steps' text: both derived.
    if (e.provenance?.format === 'opencode') {
      delete (rest as { round?: number }).round;
      if (e.type === 'round.end') delete (rest as { message?: string }).message;
    }
    // Amp numbers rounds by counting assistant lines, and both agent formats total a round's and
    // a run's text and usage from their lines: a duplicated line shifts those derived values.
    // A round's message and a run's answer are every text of the round or run: a duplicated
    // text line doubles them (the UI protocols; Claude Code reads a line equal to the one before
    // it once), and the UI protocols count rounds by their step records, so a duplicated step
    // renumbers the rest.
    if (
      e.provenance?.format === 'amp' ||
      e.provenance?.format === 'copilot' ||
      e.provenance?.format === 'ai-sdk' ||
      e.provenance?.format === 'ag-ui'
    ) {
      const r = rest as Record<string, unknown>;
      delete r.round;
      if (e.type === 'round.end' || e.type === 'run.end') {
        delete r.usage;
        delete r.message;
        delete r.answer;
      }
    }
    return rest;
  });
}

describe('fuzz: mutated fixtures', () => {
  test('bytes flipped, inserted or deleted anywhere: no exception, diagnostics placed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 }), fc.constantFrom('flip', 'insert', 'delete')), {
          minLength: 1,
          maxLength: 6,
        }),
        cuts,
        (fixture, edits, at) => {
          const b = Array.from(enc.encode(fixture.text));
          for (const [pos, byte, op] of edits) {
            const i = pos % (b.length + 1);
            if (op === 'flip') b[Math.min(i, b.length - 1)] = byte;
            else if (op === 'insert') b.splice(i, 0, byte);
            else b.splice(i, 1);
          }
          const bytes = Uint8Array.from(b);
          const whole = run(fixture.target, [bytes]);
          assertPlaces(whole, bytes.length);
          expect(run(fixture.target, chunkAt(bytes, at)).events).toEqual(whole.events);
        },
      ),
      { numRuns: HEAVY },
    );
  });

  test('a garbage line inserted between lines: the events of every intact line still arrive', () => {
    const garbage = fc.constantFrom(
      '{oops',
      '[1,2]',
      '"x"',
      '\u0000',
      '{"type":',
      'data',
      ':comment',
      '}}}}',
    );
    fc.assert(
      fc.property(fc.constantFrom(...LINE_FRAMED), fc.nat(), garbage, (fixture, pos, junk) => {
        const original = run(fixture.target, [enc.encode(fixture.text)]);
        const lines = fixture.text.split('\n');
        // In SSE the junk goes right before a block so it cannot split one; elsewhere anywhere.
        const starts = lines
          .map((_l, i) => i)
          .filter((i) => !fixture.name.endsWith('.sse') || i === 0 || lines[i - 1] === '');
        const i = starts[pos % starts.length]!;
        lines.splice(i, 0, junk);
        const mutated = run(fixture.target, [enc.encode(lines.join('\n'))]);
        // highbar keeps a JSON line that is not an object as an unknown event (next to its error);
        // gemini keeps a non-JSON line before `init` as a stdout `notice` (banners are written back).
        // In SSE the junk is a field line of the next block, whose event (unknown or not) starts
        // on the junk's line: nothing is kept for the junk itself.
        const kept = (e: (typeof mutated.events)[number]) =>
          !fixture.name.endsWith('.sse') &&
          (e.type === 'unknown' || (e.type === 'notice' && e.kind === 'stdout'));
        const others = mutated.events.filter((e) => e.provenance?.line !== i + 1 || !kept(e));
        expect(meaning(others)).toEqual(meaning(original.events));
        expect(mutated.diagnostics.length).toBeGreaterThanOrEqual(original.diagnostics.length);
      }),
      { numRuns: HEAVY },
    );
  });

  test('a line duplicated: no exception, the original events still arrive in order', () => {
    fc.assert(
      fc.property(
        // Cursor's partial output is told from its replayed snapshot by comparing texts: a
        // duplicated delta rightly makes the replay text of its own, so that fixture is left out.
        fc.constantFrom(
          ...ALL.filter((f) => f.name.endsWith('.jsonl') && !f.name.endsWith('cursor/partial-output.jsonl')),
        ),
        fc.nat(),
        (fixture, pos) => {
          const original = meaning(run(fixture.target, [enc.encode(fixture.text)]).events);
          const lines = fixture.text.split('\n');
          const i = pos % (lines.length - 1);
          lines.splice(i, 0, lines[i]!);
          const mutated = meaning(run(fixture.target, [enc.encode(lines.join('\n'))]).events);
          // Every original event is found in the mutated stream, in order (a subsequence).
          let j = 0;
          for (const e of mutated)
            if (j < original.length && JSON.stringify(e) === JSON.stringify(original[j])) j++;
          expect(j).toBeGreaterThanOrEqual(original.length - 1); // a run end may move after the duplicate
        },
      ),
      { numRuns: HEAVY },
    );
  });

  test('cut at a random byte: every line complete before the cut gives the same events', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LINE_FRAMED), fc.nat(), (fixture, pos) => {
        const bytes = enc.encode(fixture.text);
        const cut = pos % (bytes.length + 1);
        const lastLF = cut === 0 ? -1 : bytes.lastIndexOf(10, cut - 1); // (a negative fromIndex counts from the end)
        const prefix = bytes.subarray(0, cut);
        const full = run(fixture.target, [bytes]);
        const partial = run(fixture.target, [prefix], { incompleteLine: 'report' });
        assertPlaces(partial, prefix.length);
        const intact = (r: Run) =>
          r.events.filter((e) => !e.provenance?.synthetic && e.provenance!.offset < lastLF);
        if (fixture.name.endsWith('.sse')) {
          // An SSE event is complete only at its blank line: the cut prefix has a subset.
          expect(intact(partial).length).toBeLessThanOrEqual(intact(full).length);
          expect(intact(partial)).toEqual(intact(full).slice(0, intact(partial).length));
        } else expect(intact(partial)).toEqual(intact(full));
      }),
      { numRuns: HEAVY },
    );
  });
});

describe('fuzz: tight bounds', () => {
  // Every fixture under line, depth and event bounds down to zero: the same events and diagnostics
  // in any chunking, every diagnostic placed. A line or SSE event past its bound is reported as
  // soon as it crosses it, so its message gives the whole size when the line arrived in one chunk
  // and "at least N bytes so far" otherwise: only that wording may differ.
  const wording = (ds: Diagnostic[]) =>
    ds.map((d) => (d.code === 'line_too_long' || d.code === 'event_too_large' ? { ...d, message: '' } : d));
  test('maxLineBytes, maxDepth, maxEventBytes near zero: chunking-independent, placed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 600 }),
        cuts,
        (fixture, maxLineBytes, maxDepth, maxEventBytes, at) => {
          const bytes = enc.encode(fixture.text);
          const bounds = { maxLineBytes, maxDepth, maxEventBytes };
          const whole = run(fixture.target, [bytes], bounds);
          assertPlaces(whole, bytes.length);
          const chunked = run(fixture.target, chunkAt(bytes, at), bounds);
          expect(chunked.events).toEqual(whole.events);
          expect(wording(chunked.diagnostics)).toEqual(wording(whole.diagnostics));
        },
      ),
      { numRuns: HEAVY },
    );
  });
});

describe('fuzz: writers round trip hostile strings', () => {
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  );
  test('hep, nativeharness: any string (lone surrogates included) survives encode → decode', () => {
    fc.assert(
      fc.property(text, (s) => {
        const hepText = hep.stringify([{ type: 'text.delta', text: s, round: 1, session: 'x' }]);
        expect(hep.parse(hepText).events.find((e) => e.type === 'text.delta')).toMatchObject({ text: s });
        const event: AgentEvent = {
          type: 'text.delta',
          text: s,
          round: 1,
          seq: 1,
          ts: 1,
          workspace: 'w',
          session: 's',
          run: 't',
        };
        for (const framing of ['sse', 'json', 'jsonl'] as const) {
          const wire = nativeharness.stringify([event], { framing });
          expect(nativeharness.parse(wire).events.map((e) => (e as { text?: string }).text)).toEqual([s]);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('highbar: any string as tool name, args and result survives encode → decode', () => {
    fc.assert(
      fc.property(text, text, (name, s) => {
        const wire = highbar.stringify([
          { type: 'tool.start', call: 'c', name, args: { [s]: s }, ts: 1000 },
          { type: 'tool.end', call: 'c', name, ok: true, result: s, ts: 2000 },
        ]);
        const back = highbar.parse(wire).events.filter((e) => e.type === 'tool.end');
        expect(back).toHaveLength(1);
        expect(back[0]).toMatchObject({ name, result: s });
      }),
      { numRuns: RUNS },
    );
  });
});
