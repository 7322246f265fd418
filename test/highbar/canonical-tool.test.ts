import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { highbar } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { highbarFastPath } from '../../src/formats/highbar/decode';
import {
  type HighbarToolFields,
  highbarToolLine,
  HIGHBAR_TOOL_TEMPLATE as T,
} from '../../src/formats/highbar/wire';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';
import { anyValue, double, pyRepr, spell, text } from '../spelling';

// The highbar decoder reads a `tool` line in the reference emitter's full shape without building
// its record (docs/performance.md, "highbar decode"); `highbarFastPath` turns that shortcut off.
// These properties hold the two paths equal on canonical lines and on every near miss we can
// think of: the same events (key order included: compared as JSON text, and deeply), the same
// diagnostics, the same written bytes, whole and at any chunking, under several depth bounds.

const RUNS = FUZZ_RUNS * 5;

const PY = { colon: ': ', comma: ', ', escapeNonAscii: true, doubles: 'py' } as const;

/** A number of seconds as writers spell it: Python floats mostly, and every odd spelling. */
const seconds: fc.Arbitrary<string> = fc.oneof(
  fc.double({ min: 0, max: 4e9, noNaN: true }).map(pyRepr),
  fc
    .integer({ min: 1_000_000_000, max: 2_000_000_000 })
    .map((s) => `${s}.${String(s % 1000).padStart(3, '0')}`),
  double.map(pyRepr),
  fc.constantFrom(
    '1796158175.548',
    '1796158175.5481234',
    '179615817554812345.5',
    '1.0',
    '0.0',
    '0.5',
    '00.5',
    '01.5',
    '-1.5',
    '-0.0',
    '1',
    '1796158175',
    '1.',
    '.5',
    '1e3',
    '1.5e3',
    '1.5E-3',
    '1e400',
    '123456789012345.6',
    '1234567890123456.5',
    '9007199254740993.0',
    '0.1000000000000000055511151231257827',
    '"1796158175.5"',
    'null',
    ' 1.5',
    '1.5 ',
    `1${'0'.repeat(400)}.5`,
  ),
);

const jsonText = (v: unknown): string => spell(toSpelled(v), PY);

// A JSON value (from fc.jsonValue) as the Spelled tree spell() writes in Python's style.
function toSpelled(v: unknown): Parameters<typeof spell>[0] {
  if (v === null) return { t: 'null' };
  if (typeof v === 'string') return { t: 'str', v };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (typeof v === 'number') return Number.isInteger(v) ? { t: 'int', v } : { t: 'dbl', v };
  if (Array.isArray(v)) return { t: 'arr', v: v.map(toSpelled) };
  return { t: 'obj', v: Object.entries(v as object).map(([k, x]) => [k, toSpelled(x)]) };
}

const longText = fc.string({ minLength: 4000, maxLength: 4300 });

/** A string value as a writer spells it (escapes, `\u`, `\/`, raw non-ASCII, raw controls). */
const stringToken: fc.Arbitrary<string> = fc.oneof(
  text.map((s) => jsonText(s)),
  text.map((s) => JSON.stringify(s)),
  longText.map((s) => JSON.stringify(s)),
  fc.constantFrom(
    '"read"',
    '""',
    '"a\\"b"',
    '"a\\\\"',
    '"\\u0041\\/"',
    '"\\uD83D\\uDE00"',
    '"caf\u00e9"',
    '"tab\there"',
    '"bad \\x"',
    '"\\"',
    '"a", "x": "b"',
  ),
);

/** Deep arrays and objects, either side of any depth bound. */
const deep: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 6 }), fc.boolean(), fc.boolean())
  .map(([n, objects, pad]) => {
    const inner = `${(objects ? '{"a": ' : '[').repeat(n)}1${(objects ? '}' : ']').repeat(n)}`;
    return pad ? `{"pad": "${'x'.repeat(4100)}", "d": ${inner}}` : `{"d": ${inner}}`;
  });

const objectToken: fc.Arbitrary<string> = fc.oneof(
  fc.constant('{}'),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map(jsonText),
  anyValue.filter((v) => v.t === 'obj').map((v) => spell(v, PY)),
  deep,
  fc.constantFrom(
    '{"a": 9007199254740993}',
    '{"a": 1e400}',
    '{"__proto__": {"x": 1}}',
    '{"a": [1, {"b": "}"}]}',
  ),
  fc.constantFrom('{', '{"a": }', '{]', '{} ', ' {}', '[]', 'null', '"x"', '1'),
);

const valueToken: fc.Arbitrary<string> = fc.oneof(
  stringToken,
  objectToken,
  fc.jsonValue({ maxDepth: 2 }).map(jsonText),
  fc.constantFrom(
    'null',
    'true',
    'false',
    '0',
    '-1',
    '1.5',
    '1e400',
    '9007199254740993',
    'nul',
    'nulls',
    '01',
  ),
);

// The reference emitter's values, as text.
type Parts = HighbarToolFields;

const parts: fc.Arbitrary<Parts> = fc
  .record({
    ts: seconds,
    sameTimes: fc.boolean(),
    startedAt: seconds,
    endedAt: seconds,
    fn: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('"read"', '"bash"') },
      stringToken,
      // Raw characters JSON.parse refuses in a string: controls, and a lone backslash.
      fc
        .string({ unit: fc.constantFrom('a', '\t', '\n', '\u0000', '\u001f', ' ', '\\'), maxLength: 6 })
        .map((s) => `"${s}"`),
    ),
    args: objectToken,
    result: valueToken,
    error: fc.oneof(fc.constant('null'), valueToken),
    sameError: fc.boolean(),
    context: fc.option(objectToken, { nil: undefined }),
  })
  .map((p) => ({
    ts: p.ts,
    fn: p.fn,
    args: p.args,
    result: p.result,
    error: p.sameError ? p.result : p.error,
    startedAt: p.sameTimes ? p.ts : p.startedAt,
    endedAt: p.sameTimes ? p.ts : p.endedAt,
    context: p.context,
  }));

// The line the reference emitter writes (without its newline).
function canonical(p: Parts): string {
  return highbarToolLine(p).slice(0, -1);
}

// A canonical line changed in one place: keys moved, left out or added, spacing, another type,
// a cut, trailing bytes, CRLF.
const nearMiss: fc.Arbitrary<string> = fc.oneof(
  parts.map((p) => canonical(p).replace('"v": 1, "type": "tool"', '"type": "tool", "v": 1')),
  parts.map((p) => canonical(p).replace(`${T.args}${p.args}`, '')),
  parts.map((p) => canonical(p).replace(`${T.error}${p.error}`, '')),
  parts.map((p) => canonical(p).replace(`${T.startedAt}${p.startedAt}`, '')),
  parts.map((p) => canonical(p).replace(`${T.result}`, ', "x": 1, "result": ')),
  parts.map((p) => `${canonical(p).slice(0, -1)}, "x": ${p.result}}`),
  parts.map((p) => `${canonical(p).slice(0, -1)}${T.context}{}, "context": {"a": 1}}`),
  parts.map((p) => canonical(p).replace('"type": "tool"', '"type": "turn"')),
  parts.map((p) => canonical(p).replace('"v": 1', '"v": 2')),
  parts.map((p) => canonical(p).replace('"v": 1', '"v": 1.0')),
  parts.map((p) => canonical(p).replace(': ', ':')),
  parts.map((p) => canonical(p).replace(', "fn"', ',  "fn"')),
  parts.map((p) => `${canonical(p)}\r`),
  parts.map((p) => `${canonical(p)} `),
  parts.map((p) => `${canonical(p)}}`),
  fc
    .tuple(parts, fc.constantFrom(']', ' ', 'x', '"', ',', '0', '.'))
    .map(([p, end]) => `${canonical(p).slice(0, -1)}${end}`),
  parts.map((p) => ` ${canonical(p)}`),
  parts.map((p) => canonical(p).replace('"fn": "', '"fn": "\\u0041')),
  parts.map((p) => canonical(p).replace(T.fn, ', "fn": 5, "x": ')),
  parts.map((p) => canonical(p).replace(T.result, ', "result"  : ')),
);

const line: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: parts.map(canonical) },
  nearMiss,
  fc
    .tuple(fc.oneof(parts.map(canonical), nearMiss), fc.nat(), fc.nat())
    .map(([l, a, b]) => l.slice(0, a % (l.length + 1)) + l.slice((a % (l.length + 1)) + (b % 3))),
);

const OTHER = [
  '{"v": 1, "type": "hello", "ts": 1796158175.548, "sdk": "0.42.0"}',
  '{"v": 1, "type": "turn", "ts": 1796158176.0, "message": "hi", "response": "ok"}',
];

interface Decoded {
  /** Per event: whether a tool.end's result and error are one object (the full path never shares). */
  shared: boolean[];
  events: string;
  deep: unknown;
  diagnostics: Diagnostic[];
  written: string;
}

function decode(input: Uint8Array[], fast: boolean, maxDepth: number | undefined): Decoded {
  highbarFastPath.enabled = fast;
  try {
    const diagnostics: Diagnostic[] = [];
    const decoder = highbar.createDecoder({
      ...(maxDepth === undefined ? {} : { maxDepth }),
      onDiagnostic: (d) => diagnostics.push(d),
    });
    const events = input.flatMap((c) => decoder.push(c));
    events.push(...decoder.end());
    return {
      shared: events.map(
        (e) =>
          e.type === 'tool.end' && typeof e.result === 'object' && e.result !== null && e.result === e.error,
      ),
      events: JSON.stringify(events),
      deep: events,
      diagnostics,
      written: written(events),
    };
  } finally {
    highbarFastPath.enabled = true;
  }
}

// The writer's text, or what it threw (a value JSON.parse read as Infinity cannot be written).
function written(events: Parameters<typeof highbar.stringify>[0]): string {
  try {
    return highbar.stringify(events);
  } catch (error) {
    return `threw: ${(error as Error).message}`;
  }
}

const depth = fc.constantFrom(undefined, 0, 1, 2, 3, 4);

afterEach(() => {
  highbarFastPath.enabled = true;
});

describe('highbar decoder: the canonical tool line shortcut', () => {
  test('decodes every line as the full path does', () => {
    fc.assert(
      fc.property(line, depth, (text, maxDepth) => {
        const bytes = [new TextEncoder().encode(`${text}\n`)];
        const fast = decode(bytes, true, maxDepth);
        const full = decode(bytes, false, maxDepth);
        expect(fast.events).toBe(full.events);
        expect(fast.shared).toEqual(full.shared);
        expect(fast.deep).toEqual(full.deep);
        expect(fast.diagnostics).toEqual(full.diagnostics);
        expect(fast.written).toBe(full.written);
      }),
      { numRuns: RUNS },
    );
  });

  test('streams of lines decode alike at any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(line, fc.constantFrom(...OTHER)), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom('\n', '\r\n'),
        depth,
        (lines, cuts, eol, maxDepth) => {
          const bytes = new TextEncoder().encode(lines.join(eol) + eol);
          const fast = decode(
            chunkAt(
              bytes,
              cuts.map((c) => c % (bytes.length + 1)),
            ),
            true,
            maxDepth,
          );
          const full = decode([bytes], false, maxDepth);
          expect(fast.events).toBe(full.events);
          expect(fast.diagnostics).toEqual(full.diagnostics);
          expect(fast.written).toBe(full.written);
        },
      ),
      { numRuns: RUNS / 2 },
    );
  });

  test('decodes the edge cases as the full path does', () => {
    const base: Parts = {
      ts: '1796158175.548',
      fn: '"read"',
      args: '{}',
      result: '"ok"',
      error: 'null',
      startedAt: '1796158175.548',
      endedAt: '1796158175.6',
      context: undefined,
    };
    const lines = [
      canonical(base),
      canonical({ ...base, ts: `1${'0'.repeat(400)}.5` }),
      canonical({ ...base, endedAt: `9${'9'.repeat(20)}.5` }),
      canonical({ ...base, fn: '"a\tb"' }),
      canonical({ ...base, fn: '"a	b"' }),
      canonical({ ...base, context: '{"test": "t-1"}' }),
      canonical({ ...base, result: '{"a": 1}', error: '{"a": 1}' }),
      canonical({ ...base, result: '9007199254740993' }),
      `${canonical(base).slice(0, -1)}]`,
      `${canonical(base).slice(0, -1)} `,
      `${canonical({ ...base, context: '{}' }).slice(0, -1)}]`,
    ];
    for (const text of lines) {
      for (const maxDepth of [undefined, 1, 2, 3]) {
        const bytes = [new TextEncoder().encode(`${text}\n`)];
        const fast = decode(bytes, true, maxDepth);
        const full = decode(bytes, false, maxDepth);
        expect(fast).toEqual(full);
        expect(fast.events).toBe(full.events);
      }
    }
  });

  test('takes the shortcut on the emitter lines, which come back byte for byte', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const line =
        '{"v": 1, "type": "tool", "ts": 1796158175.548, "fn": "read", "args": {}, "result": "a\\"b\\n", "error": null, "started_at": 1796158175.548, "ended_at": 1796158175.6}';
      const events = highbar.createDecoder().push(`${line}\n`);
      // One JSON.parse: the result string (fn, args, error and the times are read in place).
      expect(parse).toHaveBeenCalledTimes(1);
      expect(events.map((e) => e.type)).toEqual(['run.start', 'tool.start', 'tool.end']);
      expect(events[2]).toMatchObject({ result: 'a"b\n', text: 'a"b\n', error: null, ok: true });
      expect(highbar.stringify(events)).toBe(`${line}\n`);
    } finally {
      parse.mockRestore();
    }
  });

  test('a valid line the shortcut does not take is not parsed twice (a throw costs many lines)', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      highbar
        .createDecoder()
        .push(
          '{"v": 1, "type": "tool", "ts": 1.5, "fn": "read", "args": {}, "result": "a", "x": 1, "error": null, "started_at": 1.5, "ended_at": 1.5}\n',
        );
      for (const r of parse.mock.results) expect(r.type).toBe('return');
    } finally {
      parse.mockRestore();
    }
  });
});
