import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type Diagnostic, hep } from '../../src/all';
import { FUZZ_RUNS as RUNS } from '../runs';
import {
  anyValue,
  arr,
  bool,
  dartDouble,
  double,
  extraFields,
  int,
  obj,
  otherStyles,
  type Spelled,
  type Style,
  spell,
  str,
  text,
  withExtra,
} from '../spelling';

// HEP's reference writer is Dart's `jsonEncode` (IstiN/flutter_agent_harness, lib/src/cli/hep.dart):
// compact, keys in the order the frame builders list them, strings escaped as ES2019
// JSON.stringify escapes them (lowercase `\u00xx`, lone surrogates as `\udxxx`, `/` and
// non-ASCII raw), ints as digits, doubles as Dart prints them (`0.0`, `-0.0`, `1e-7`, `1e+21`).
// Frames and fields a later v1 adds are written by the same encoder, so a value no schema here
// types may be a Dart double (`1.0`) or a map with integer-like keys in insertion order. Every
// such line must come back byte for byte. Lines in another writer's spelling (whitespace, `\/`,
// `\u0041`, `1.0` for an int, a key twice) are not the reference's: they are read, and written
// back either as they came or in the reference spelling (docs/protocols/hep.md), never
// otherwise.

const DART: Style = { doubles: 'dart' };

type Frame = Array<[string, Spelled]>;

// Turn ids are the only state the writer keeps between frames: each frame is made for its round.
type Make = (turn: number) => fc.Arbitrary<Frame>;

const summaryText = text.filter((t) => t.length <= 100 && !t.startsWith('{'));
const argsObject = anyValue.filter((v) => v.t === 'obj');
const nonEmpty = text.filter((t) => t.length > 0);

const frames: Record<string, Make> = {
  message_start: (n) =>
    fc.constant([
      ['type', str('message_start')],
      ['turn_id', int(n)],
      ['role', str('assistant')],
    ]),
  message_delta: (n) =>
    text.map(
      (d): Frame => [
        ['type', str('message_delta')],
        ['turn_id', int(n)],
        ['delta', str(d)],
      ],
    ),
  tool_start: (n) =>
    fc
      .tuple(
        text,
        text,
        fc.oneof(
          summaryText,
          argsObject.map((a) => spell(a, DART)),
        ),
      )
      .map(
        ([id, name, summary]): Frame => [
          ['type', str('tool_start')],
          ['turn_id', int(n)],
          ['id', str(id)],
          ['name', str(name)],
          ['args_summary', str(summary)],
        ],
      ),
  tool_delta: (n) =>
    fc.tuple(text, nonEmpty).map(
      ([id, update]): Frame => [
        ['type', str('tool_delta')],
        ['turn_id', int(n)],
        ['id', str(id)],
        ['update', str(update)],
      ],
    ),
  tool_liveness: (n) =>
    fc
      .tuple(
        text,
        text,
        fc.constantFrom('heartbeat', 'cancel_retry', 'background_convert', 'escalate', 'advisory'),
        fc.maxSafeNat(),
        fc.option(fc.maxSafeNat(), { nil: undefined }),
        fc.option(nonEmpty, { nil: undefined }),
      )
      .map(([id, name, action, elapsed, bytes, detail]): Frame => {
        const f: Frame = [
          ['type', str('tool_liveness')],
          ['turn_id', int(n)],
          ['id', str(id)],
          ['name', str(name)],
          ['action', str(action)],
          ['elapsed_ms', int(elapsed)],
        ];
        if (bytes !== undefined) f.push(['output_bytes', int(bytes)]);
        if (detail !== undefined) f.push(['detail', str(detail)]);
        return f;
      }),
  unknown: (n) =>
    fc
      .tuple(
        fc.constantFrom('future_frame', 'tool_end', 'usage_update', 'x'),
        fc.boolean(),
        extraFields(['type', 'turn_id']),
      )
      .map(
        ([type, withTurn, fields]): Frame => [
          ['type', str(type)],
          ...(withTurn ? ([['turn_id', int(n)]] as Frame) : []),
          ...fields,
        ],
      ),
};

// Fields of its own, anywhere after `type` (a later v1 may add them where its builder says).
function extended(make: fc.Arbitrary<Frame>, known: readonly string[]): fc.Arbitrary<Frame> {
  return fc
    .tuple(make, fc.option(extraFields(known), { freq: 3, nil: [] }), fc.array(fc.nat(), { maxLength: 3 }))
    .map(([f, extra, at]) => withExtra(f, extra, at, 1));
}

const KNOWN: Record<string, readonly string[]> = {
  message_start: ['type', 'turn_id', 'role'],
  message_delta: ['type', 'turn_id', 'delta'],
  tool_start: ['type', 'turn_id', 'id', 'name', 'args_summary'],
  tool_delta: ['type', 'turn_id', 'id', 'update'],
  tool_liveness: ['type', 'turn_id', 'id', 'name', 'action', 'elapsed_ms', 'output_bytes', 'detail'],
  unknown: ['type', 'turn_id'],
};

const toolResult = fc
  .tuple(
    text,
    text,
    fc.boolean(),
    text,
    fc.option(extraFields(['id', 'name', 'ok', 'text']), { freq: 4, nil: [] }),
  )
  .map(([id, name, ok, t, extra]) =>
    obj([['id', str(id)], ['name', str(name)], ['ok', bool(ok)], ['text', str(t)], ...extra]),
  );
const usage = fc
  .tuple(
    fc.maxSafeNat(),
    fc.maxSafeNat(),
    double,
    fc.option(extraFields(['input', 'output', 'cost']), { freq: 4, nil: [] }),
  )
  .map(([i, o, cost, extra]) =>
    obj([['input', int(i)], ['output', int(o)], ['cost', { t: 'dbl', v: cost }], ...extra]),
  );

const turnDone = (n: number) =>
  extended(
    fc
      .tuple(
        text,
        fc.array(toolResult, { maxLength: 3 }),
        usage,
        fc.oneof(fc.constantFrom('stop', 'length', 'toolUse'), text),
      )
      .map(
        ([message, results, u, stop]): Frame => [
          ['type', str('turn_done')],
          ['turn_id', int(n)],
          ['message', str(message)],
          ['tool_results', arr(results)],
          ['usage', u],
          ['stop_reason', str(stop)],
        ],
      ),
    ['type', 'turn_id', 'message', 'tool_results', 'usage', 'stop_reason'],
  );
const lastTerminal = (n: number) =>
  fc.oneof(
    turnDone(n),
    extended(
      text.map(
        (e): Frame => [
          ['type', str('turn_error')],
          ['turn_id', int(n)],
          ['error', str(e)],
          ['fatal', bool(true)],
        ],
      ),
      ['type', 'turn_id', 'error', 'fatal'],
    ),
    extended(
      fc.constant<Frame>([
        ['type', str('cancelled')],
        ['turn_id', int(n)],
      ]),
      ['type', 'turn_id'],
    ),
  );
const compaction = (n: number) =>
  fc
    .tuple(
      extended(
        fc.constant<Frame>([
          ['type', str('compaction_start')],
          ['turn_id', int(n)],
        ]),
        ['type', 'turn_id'],
      ),
      extended(
        fc.maxSafeNat().map(
          (t): Frame => [
            ['type', str('compaction_end')],
            ['turn_id', int(n)],
            ['tokens_freed', int(t)],
          ],
        ),
        ['type', 'turn_id', 'tokens_freed'],
      ),
    )
    .map(([a, b]) => [a, b]);

function round(n: number, last: boolean): fc.Arbitrary<Frame[]> {
  const body = fc.array(fc.oneof(...Object.keys(frames).map((k) => extended(frames[k]!(n), KNOWN[k]!))), {
    maxLength: 6,
  });
  return fc
    .tuple(body, fc.option(compaction(n), { nil: [] }), last ? lastTerminal(n) : turnDone(n))
    .map(([b, c, end]) => [...b, ...c, end]);
}

/** One `fa` run as the reference writes it: header, (pre-flight compaction,) agent_start, rounds. */
const run: fc.Arbitrary<Frame[]> = fc
  .tuple(text, text, fc.boolean(), fc.integer({ min: 1, max: 3 }))
  .chain(([fah, session, preflight, rounds]) =>
    fc
      .tuple(
        extended(
          fc.constant<Frame>([
            ['type', str('hep_header')],
            ['hep', str('v1')],
            ['fah', str(fah)],
            ['session', str(session)],
          ]),
          ['type', 'hep', 'fah', 'session'],
        ),
        preflight ? compaction(1) : fc.constant([]),
        extended(
          fc.constant<Frame>([
            ['type', str('agent_start')],
            ['turn_id', int(1)],
          ]),
          ['type', 'turn_id'],
        ),
        ...Array.from({ length: rounds }, (_, i) => round(i + 1, i === rounds - 1)),
      )
      .map(([header, pre, start, ...rs]) => [header, ...pre, start, ...rs.flat()]),
  );

const lines = (run: Frame[], style: Style): string[] => run.map((f) => spell(obj(f), { ...DART, ...style }));

// Generated costs are any doubles: two near the limit (-1.5e293 and -1.8e308) sum past a double's
// range in the run's total, which keeps the last finite total and warns for the line (the
// decoder's one warning of the kind, test/hostile/non-finite.test.ts). The spellings are what
// these tests are about: that warning is left out of `decoded`, every other diagnostic is not.
const RUN_TOTAL_PAST_RANGE =
  /^line \d+ \(byte \d+\): a sum or product of its numbers is past a double's range/;

function roundTrip(input: string): { out: string; decoded: Diagnostic[]; written: Diagnostic[] } {
  const { events, diagnostics } = hep.parse(input);
  const written: Diagnostic[] = [];
  const out = hep.stringify(events, { onDiagnostic: (d) => written.push(d) });
  const decoded = diagnostics.filter(
    (d) => !(d.severity === 'warning' && RUN_TOTAL_PAST_RANGE.test(d.message)),
  );
  return { out, decoded, written };
}

// The keys HEP defines per frame type; anything else is a field of the frame's own.
const DEFINED: Record<string, readonly string[]> = {
  ...KNOWN,
  hep_header: ['type', 'hep', 'fah', 'session'],
  agent_start: ['type', 'turn_id'],
  turn_error: ['type', 'turn_id', 'error', 'fatal'],
  cancelled: ['type', 'turn_id'],
  compaction_start: ['type', 'turn_id'],
  compaction_end: ['type', 'turn_id', 'tokens_freed'],
};

// A frame of an unknown type, or with fields of its own (a turn_done: also in its tool results
// and usage), may be kept as it came; any other is written in the reference spelling.
function hasOwnFields(f: Frame): boolean {
  const type = (f[0]![1] as { v: string }).v;
  if (type === 'turn_done') return true;
  const defined = Object.hasOwn(DEFINED, type) && type !== 'unknown' ? DEFINED[type]! : undefined;
  return defined === undefined || f.some(([k]) => !defined.includes(k));
}

describe('HEP: what a conforming (Dart jsonEncode) writer may write comes back byte for byte', () => {
  test('the canonical spelling is ES2019 JSON.stringify for strings and Dart toString for doubles', () => {
    fc.assert(
      fc.property(text, double, (s, d) => {
        expect(spell(str(s))).toBe(JSON.stringify(s));
        expect(JSON.parse(dartDouble(d))).toBe(d);
      }),
      { numRuns: RUNS * 5 },
    );
  });

  test('whole runs: escapes, lone surrogates, Dart doubles, unknown frames and fields with integer-like keys', () => {
    let unusual = 0;
    fc.assert(
      fc.property(run, (frames) => {
        const input = `${lines(frames, {}).join('\n')}\n`;
        if (input.includes('.0') || /"\d+":/.test(input)) unusual++;
        const { out, decoded, written } = roundTrip(input);
        expect(decoded).toEqual([]);
        expect(written).toEqual([]);
        expect(out).toBe(input);
      }),
      { numRuns: RUNS * 5 },
    );
    // The property is about what JSON.parse forgets: make sure the runs had plenty of it.
    expect(unusual).toBeGreaterThan(RUNS);
  });

  test('examples: a Dart double or an integer-like key where no schema looks, and a -0.0 cost', () => {
    const header = '{"type":"hep_header","hep":"v1","fah":"1.0.0","session":"s1"}\n';
    const bodies = [
      '{"type":"future_frame","turn_id":1,"ratio":1.0}\n',
      '{"type":"future_frame","turn_id":1,"by_id":{"b":1,"2":2.0,"1":-0.0}}\n',
      '{"type":"agent_start","turn_id":1,"elapsed_s":2.0}\n',
      '{"type":"agent_start","turn_id":1,"7":true}\n',
      '{"type":"agent_start","turn_id":1}\n{"type":"turn_done","turn_id":1,"message":"","tool_results":[{"id":"a","name":"b","ok":true,"text":"","ms":3.0}],"usage":{"input":1,"output":2,"cost":0.0},"stop_reason":"stop"}\n',
      '{"type":"agent_start","turn_id":1}\n{"type":"turn_done","turn_id":1,"message":"","tool_results":[],"usage":{"input":1,"output":2,"cost":0.0,"cache_read":0.0},"stop_reason":"stop"}\n',
      '{"type":"agent_start","turn_id":1}\n{"type":"turn_done","turn_id":1,"message":"","tool_results":[],"usage":{"input":1,"output":2,"cost":-0.0},"stop_reason":"stop"}\n',
    ];
    for (const body of bodies) {
      const { out, decoded, written } = roundTrip(header + body);
      expect(decoded).toEqual([]);
      expect(written).toEqual([]);
      expect(out).toBe(header + body);
    }
  });

  test('an edited event is written from the model, not from the line it came from', () => {
    const input =
      '{"type":"hep_header","hep":"v1","fah":"1.0.0","session":"s1"}\n{"type":"future_frame","turn_id":1,"ratio":1.0}\n';
    const { events } = hep.parse(input);
    const unknown = events[1] as { record: Record<string, unknown> };
    unknown.record = { ...unknown.record, ratio: 2 };
    expect(hep.stringify(events)).toBe(
      '{"type":"hep_header","hep":"v1","fah":"1.0.0","session":"s1"}\n{"type":"future_frame","turn_id":1,"ratio":2}\n',
    );
  });
});

describe("HEP: other writers' spellings are read and written back as they came or in the reference spelling", () => {
  for (const [name, style] of otherStyles) {
    test(name, () => {
      fc.assert(
        fc.property(run, (frames) => {
          const canonical = lines(frames, {});
          const respelled = lines(frames, style);
          const { out, decoded, written } = roundTrip(`${respelled.join('\n')}\n`);
          expect(decoded).toEqual([]);
          expect(written).toEqual([]);
          const back = out.split('\n').slice(0, -1);
          expect(back.length).toBe(frames.length);
          back.forEach((line, i) => {
            // A frame with only the fields HEP defines is written in the reference spelling.
            if (!hasOwnFields(frames[i]!)) expect(line).toBe(canonical[i]);
            else expect([respelled[i], canonical[i]]).toContain(line);
          });
        }),
        { numRuns: RUNS },
      );
    });
  }
});
