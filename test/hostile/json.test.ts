import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { Codec } from '../../src/codec';
import { AgentwireError } from '../../src/diagnostics';
import { hep } from '../../src/formats/hep/index';
import { highbar } from '../../src/formats/highbar/index';
import { nativeharness } from '../../src/formats/nativeharness/index';
import { exceedsDepth, NOT_PARSED, parseJsonLine, parseRecordText, refusedJson } from '../../src/json';
import type { AgentEvent, AgentEventOf } from '../../src/model';
import {
  at,
  bugTest,
  byteByByte,
  type Chunk,
  type DecodeOutcome,
  type DiagAt,
  decode,
  prototypeIsClean,
  shape,
} from './helpers';

// The JSON layer's hostile cases, through the codecs that use it. Each: exact text, one outcome
// (events as type@line, diagnostics as [code, line, offset]), and, where the case is about
// keeping data, a round trip back to the same bytes.

const H = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n'; // 57 bytes
const AGENT = '{"type":"agent_start","turn_id":1}\n'; // 35 bytes
const HB_TOOL = (args: string) =>
  `{"v": 1, "type": "tool", "ts": 1792983750.215, "fn": "f", "args": ${args}, "result": null, "error": null, "started_at": 1792983750.214, "ended_at": 1792983750.215}\n`;
const NH = (seq: string, payload: string, type = 'progress') =>
  `{"seq":${seq},"ts":1767225600137,"type":"${type}","workspace_id":"w","session_id":"s","turn_id":"t","payload":${payload}}\n`;

interface CodecCase {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: the three codecs differ only in option types
  codec: Codec<any, any>;
  chunks: Chunk[];
  options?: { maxLineBytes?: number };
  shape: string[];
  diagnostics: DiagAt[];
  /** The decoded stream writes back to exactly the input. */
  roundTrip?: boolean;
  check?: (out: DecodeOutcome) => void;
  /** BUG: the case documents a defect the codec owner must fix (see the report). */
  fails?: boolean;
}

const deepArrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObjects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const manyKeys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',');

const cases: CodecCase[] = [
  // nesting
  {
    name: 'HEP: 100 000 levels of [ ] are refused before JSON.parse; the next line is read',
    codec: hep,
    chunks: [H, `{"type":"x","a":${deepArrays(100_000)}}\n`, AGENT],
    shape: ['session.start@1', 'run.start@3'],
    diagnostics: [['nesting_too_deep', 2, 57]],
  },
  {
    name: 'HEP: 100 000 nested objects are refused before JSON.parse',
    codec: hep,
    chunks: [H, `{"type":"x","a":${deepObjects(100_000)}}\n`],
    shape: ['session.start@1'],
    diagnostics: [['nesting_too_deep', 2, 57]],
  },
  {
    name: 'HEP: 100 000 unclosed [ (not even JSON) are refused by depth, not by the parser',
    codec: hep,
    chunks: [H, `${'['.repeat(100_000)}\n`],
    shape: ['session.start@1'],
    diagnostics: [['nesting_too_deep', 2, 57]],
  },
  {
    name: 'HEP: nesting of exactly maxDepth (64) is read',
    codec: hep,
    chunks: [H, `{"type":"x","a":${deepArrays(63)}}\n`],
    shape: ['session.start@1', 'unknown@2'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'HEP: nesting of maxDepth + 1 (65) is refused',
    codec: hep,
    chunks: [H, `{"type":"x","a":${deepArrays(64)}}\n`],
    shape: ['session.start@1'],
    diagnostics: [['nesting_too_deep', 2, 57]],
  },
  {
    name: 'HEP: 100 000 brackets inside a string are text, not nesting',
    codec: hep,
    chunks: [H, AGENT, `{"type":"message_delta","turn_id":1,"delta":"${'[{'.repeat(50_000)}"}\n`],
    shape: ['session.start@1', 'run.start@2', 'text.delta@3'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'HEP: an escaped quote does not end the string the depth scan skips',
    codec: hep,
    chunks: [H, AGENT, `{"type":"message_delta","turn_id":1,"delta":"\\"${'['.repeat(100)}\\\\"}\n`],
    shape: ['session.start@1', 'run.start@2', 'text.delta@3'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'nativeharness: 100 000 levels in a payload are refused; the next envelope is read',
    codec: nativeharness,
    chunks: [NH('1', `{"status":${deepArrays(100_000)}}`), NH('2', '{"status":"ok"}')],
    shape: ['status@2'],
    diagnostics: [['nesting_too_deep', 1, 0]],
  },
  {
    name: 'highbar: 100 000 levels in args are refused; the next line is read',
    codec: highbar,
    chunks: [HB_TOOL(deepObjects(100_000)), '{"v": 1, "type": "turn", "ts": 1792983750.5}\n'],
    shape: ['run.start@2', 'run.end@2'],
    diagnostics: [['nesting_too_deep', 1, 0]],
  },
  // width
  {
    name: 'HEP: 200 000 keys in one unknown frame are read and written back byte for byte',
    codec: hep,
    chunks: [H, `{"type":"x",${manyKeys(200_000)}}\n`],
    options: { maxLineBytes: 16 * 1024 * 1024 },
    shape: ['session.start@1', 'unknown@2'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'HEP: 200 000 unknown keys on a known frame are kept in provenance.extra, in order',
    codec: hep,
    chunks: [H, `{"type":"agent_start","turn_id":1,${manyKeys(200_000)}}\n`],
    options: { maxLineBytes: 16 * 1024 * 1024 },
    shape: ['session.start@1', 'run.start@2'],
    diagnostics: [],
    roundTrip: true,
    check: ({ events }) => expect(Object.keys(events[1]!.provenance!.extra!)).toHaveLength(200_000),
  },
  {
    name: 'HEP: 200 000 keys (2.9 MB) under the default 1 MiB line bound: line_too_long, the stream goes on',
    codec: hep,
    chunks: [H, `{"type":"x",${manyKeys(200_000)}}\n`, AGENT],
    shape: ['session.start@1', 'run.start@3'],
    diagnostics: [['line_too_long', 2, 57]],
  },
  // numbers
  {
    name: 'HEP: turn_id 2^53 + 1 is invalid_record, never rounded to 2^53',
    codec: hep,
    chunks: [H, '{"type":"agent_start","turn_id":9007199254740993}\n'],
    shape: ['session.start@1'],
    diagnostics: [['invalid_record', 2, 57]],
  },
  {
    name: 'HEP: turn_id 2^53 (not a safe integer) is invalid_record',
    codec: hep,
    chunks: [H, '{"type":"agent_start","turn_id":9007199254740992}\n'],
    shape: ['session.start@1'],
    diagnostics: [['invalid_record', 2, 57]],
  },
  {
    name: 'HEP: turn_id 1e400 (Infinity after JSON.parse) is invalid_record',
    codec: hep,
    chunks: [H, '{"type":"agent_start","turn_id":1e400}\n'],
    shape: ['session.start@1'],
    diagnostics: [['invalid_record', 2, 57]],
  },
  {
    name: 'HEP: usage.input 1e400 in turn_done is invalid_record',
    codec: hep,
    chunks: [
      H,
      '{"type":"turn_done","turn_id":1,"message":"m","tool_results":[],"usage":{"input":1e400,"output":1,"cost":0.1},"stop_reason":"stop"}\n',
    ],
    shape: ['session.start@1'],
    diagnostics: [['invalid_record', 2, 57]],
  },
  {
    name: 'nativeharness: seq 2^53 + 1 is invalid_record, never rounded',
    codec: nativeharness,
    chunks: [NH('9007199254740993', '{"status":"x"}')],
    shape: [],
    diagnostics: [['invalid_record', 1, 0]],
  },
  {
    name: "nativeharness: ts 1e400 is invalid_record, and a warning says it is past a double's range",
    codec: nativeharness,
    chunks: [NH('1', '{"status":"x"}').replace('1767225600137', '1e400')],
    shape: [],
    diagnostics: [
      ['invalid_record', 1, 0],
      ['invalid_record', 1, 0],
    ],
    check: (out) =>
      expect(out.diagnostics[1]).toMatchObject({
        severity: 'warning',
        message:
          "line 1 (byte 0): ts: 1e400 is past a double's range (read as Infinity); left out of the event",
      }),
  },
  {
    name: 'highbar: an id of 20 digits in args is an error; the tool call is still delivered',
    codec: highbar,
    chunks: [HB_TOOL('{"id": 12345678901234567890}')],
    shape: ['run.start@1', 'tool.start@1', 'tool.end@1'],
    diagnostics: [['invalid_record', 1, 0]],
  },
  {
    name: 'highbar: "v" of 2^53 + 1 is an error (and a version this library does not read)',
    codec: highbar,
    chunks: ['{"v": 9007199254740993, "type": "turn", "ts": 1.5}\n'],
    shape: ['unknown@1'],
    diagnostics: [
      ['invalid_record', 1, 0],
      ['unsupported_version', 1, 0],
    ],
  },
  {
    name: 'HEP: an integer beyond 2^53 in an unknown frame is reported, not silently rounded',
    codec: hep,
    chunks: [H, '{"type":"x","id":9007199254740993}\n'],
    shape: ['session.start@1', 'unknown@2'],
    diagnostics: [['invalid_record', 2, 57]],
  },
  {
    name: 'HEP: an integer beyond 2^53 in an unknown field of a known frame is reported',
    codec: hep,
    chunks: [H, '{"type":"agent_start","turn_id":1,"request_id":12345678901234567890}\n'],
    shape: ['session.start@1', 'run.start@2'],
    diagnostics: [['invalid_record', 2, 57]],
  },
  {
    name: 'HEP: 1e400 in an unknown frame is reported at decode, not turned into Infinity',
    codec: hep,
    chunks: [H, '{"type":"x","n":1e400}\n'],
    shape: ['session.start@1', 'unknown@2'],
    diagnostics: [['invalid_record', 2, 57]],
  },
  {
    name: 'highbar: 1e400 in args is reported, not turned into Infinity',
    codec: highbar,
    chunks: [HB_TOOL('{"n": 1e400}')],
    shape: ['run.start@1', 'tool.start@1', 'tool.end@1'],
    diagnostics: [['invalid_record', 1, 0]],
  },
  {
    name: 'nativeharness: an integer beyond 2^53 in tool args is reported, not silently rounded',
    codec: nativeharness,
    chunks: [
      NH(
        '1',
        '{"hop":1,"call_id":"c","tool":"t","args":{"id":9007199254740993},"command":"x"}',
        'tool_started',
      ),
    ],
    shape: ['tool.start@1'],
    diagnostics: [['invalid_record', 1, 0]],
  },
  {
    name: 'HEP: duplicate keys: the last value wins (as JSON.parse), no diagnostic',
    codec: hep,
    chunks: [H, '{"type":"agent_start","turn_id":1,"turn_id":2}\n'],
    shape: ['session.start@1', 'run.start@2'],
    diagnostics: [],
    check: ({ events }) => expect(events[1]!.round).toBe(2),
  },
  {
    name: 'HEP: a duplicate "type" key decides the frame by its last value',
    codec: hep,
    chunks: [H, '{"type":"agent_start","type":"mystery","turn_id":1}\n'],
    shape: ['session.start@1', 'unknown@2'],
    diagnostics: [],
    check: ({ events }) => expect((events[1] as AgentEventOf<'unknown'>).recordType).toBe('mystery'),
  },
  // prototype keys
  {
    name: 'HEP: __proto__ at the top of an unknown frame stays an own data key',
    codec: hep,
    chunks: [H, '{"type":"x","__proto__":{"polluted":true}}\n'],
    shape: ['session.start@1', 'unknown@2'],
    diagnostics: [],
    roundTrip: true,
    check: ({ events }) => {
      const record = (events[1] as AgentEventOf<'unknown'>).record as object;
      expect(Object.hasOwn(record, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    },
  },
  {
    name: 'HEP: __proto__ as an unknown field of a known frame lands in provenance.extra as data',
    codec: hep,
    chunks: [H, '{"type":"agent_start","turn_id":1,"__proto__":{"polluted":true}}\n'],
    shape: ['session.start@1', 'run.start@2'],
    diagnostics: [],
    roundTrip: true,
    check: ({ events }) => {
      const extra = events[1]!.provenance!.extra!;
      expect(Object.hasOwn(extra, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    },
  },
  {
    name: 'HEP: __proto__ nested inside an unknown field is data',
    codec: hep,
    chunks: [H, '{"type":"agent_start","turn_id":1,"meta":{"a":{"__proto__":{"polluted":true}}}}\n'],
    shape: ['session.start@1', 'run.start@2'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'HEP: constructor.prototype keys at the top and nested are data',
    codec: hep,
    chunks: [
      H,
      '{"type":"x","constructor":{"prototype":{"polluted":true}},"n":{"constructor":{"prototype":{"polluted":1}}}}\n',
    ],
    shape: ['session.start@1', 'unknown@2'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'HEP: a record that is only {"__proto__":…} has no type: unknown event and a warning',
    codec: hep,
    chunks: [H, '{"__proto__":{"type":"agent_start","turn_id":1}}\n'],
    shape: ['session.start@1', 'unknown@2'],
    diagnostics: [['invalid_record', 2, 57]],
    roundTrip: false,
  },
  {
    name: 'highbar: __proto__ inside args and context stays data and round trips',
    codec: highbar,
    chunks: [
      '{"v": 1, "type": "tool", "ts": 1792983750.215, "fn": "f", "args": {"__proto__": {"polluted": true}}, "result": null, "error": null, "started_at": 1792983750.214, "ended_at": 1792983750.215, "context": {"__proto__": {"polluted": true}}}\n',
    ],
    shape: ['run.start@1', 'tool.start@1', 'tool.end@1'],
    diagnostics: [],
    roundTrip: true,
    check: ({ events }) => {
      const start = events[1] as AgentEventOf<'tool.start'>;
      expect(Object.hasOwn(start.args!, '__proto__')).toBe(true);
    },
  },
  {
    name: 'nativeharness: __proto__ in a payload stays data and round trips',
    codec: nativeharness,
    chunks: [NH('1', '{"status":"x","__proto__":{"polluted":true}}')],
    shape: ['status@1'],
    diagnostics: [],
    roundTrip: true,
  },
  // strings
  {
    name: 'HEP: NUL and lone surrogates in a delta survive decode → encode byte for byte',
    codec: hep,
    chunks: [H, AGENT, '{"type":"message_delta","turn_id":1,"delta":"a\\u0000b\\ud800c\\udfffd"}\n'],
    shape: ['session.start@1', 'run.start@2', 'text.delta@3'],
    diagnostics: [],
    roundTrip: true,
    check: ({ events }) => expect((events[2] as AgentEventOf<'text.delta'>).text).toBe('a\0b\uD800c\uDFFFd'),
  },
  {
    name: 'HEP: a reversed surrogate pair (low then high) stays two lone surrogates',
    codec: hep,
    chunks: [H, AGENT, '{"type":"message_delta","turn_id":1,"delta":"\\udc00\\ud800"}\n'],
    shape: ['session.start@1', 'run.start@2', 'text.delta@3'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'HEP: raw U+2028, U+2029 and </script> in a string are text',
    codec: hep,
    chunks: [H, AGENT, '{"type":"message_delta","turn_id":1,"delta":"a\u2028b\u2029</script><!--"}\n'],
    shape: ['session.start@1', 'run.start@2', 'text.delta@3'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'highbar: NUL and lone surrogates in args survive decode → encode byte for byte',
    codec: highbar,
    chunks: [HB_TOOL('{"s": "a\\u0000b\\ud800c"}')],
    shape: ['run.start@1', 'tool.start@1', 'tool.end@1'],
    diagnostics: [],
    roundTrip: true,
  },
  {
    name: 'nativeharness: NUL and lone surrogates in token text survive decode → encode byte for byte',
    codec: nativeharness,
    chunks: [NH('1', '{"hop":1,"text":"a\\u0000b\\ud800c"}', 'token')],
    shape: ['text.delta@1'],
    diagnostics: [],
    roundTrip: true,
  },
  // not JSON objects
  {
    name: 'HEP: an array, a string, null, a number and true are each invalid_json',
    codec: hep,
    chunks: [H, '[1]\n"x"\nnull\n1\ntrue\n', AGENT],
    shape: ['session.start@1', 'run.start@7'],
    diagnostics: [
      ['invalid_json', 2, 57],
      ['invalid_json', 3, 61],
      ['invalid_json', 4, 65],
      ['invalid_json', 5, 70],
      ['invalid_json', 6, 72],
    ],
  },
  {
    name: 'HEP: trailing content after the object is invalid_json',
    codec: hep,
    chunks: [H, '{"type":"agent_start","turn_id":1} {}\n'],
    shape: ['session.start@1'],
    diagnostics: [['invalid_json', 2, 57]],
  },
  {
    name: 'HEP: a blank line and a line of spaces are skipped: one info at the first, one at the last',
    codec: hep,
    chunks: [H, '\n   \n', AGENT],
    shape: ['session.start@1', 'run.start@4'],
    diagnostics: [
      ['invalid_json', 2, 57],
      ['invalid_json', 3, 58],
    ],
  },
  {
    name: 'HEP: a raw control character inside a JSON string is invalid_json',
    codec: hep,
    chunks: [H, '{"type":"message_delta","turn_id":1,"delta":"a\tb"}\n', AGENT],
    shape: ['session.start@1', 'run.start@3'],
    diagnostics: [['invalid_json', 2, 57]],
  },
];

describe('hostile input: JSON layer, through the codecs', () => {
  for (const c of cases) {
    const run = c.fails === true ? bugTest : test;
    run(c.name, () => {
      const out = decode(c.codec, c.chunks, c.options ?? {});
      // These inputs end with their run open: since round ten the decoders end it with a synthetic
      // run.end of status incomplete (test/hep/run-outcome.test.ts, test/highbar/run-outcome.test.ts).
      const last = out.events.at(-1);
      const open =
        last?.type === 'run.end' && last.status === 'incomplete' && last.provenance?.synthetic === true;
      if (open) expect(out.events.some((e) => e.type === 'run.start')).toBe(true);
      const events = open ? out.events.slice(0, -1) : out.events;
      expect({ shape: shape(events), diagnostics: at(out.diagnostics) }).toEqual({
        shape: c.shape,
        diagnostics: c.diagnostics,
      });
      expect(prototypeIsClean()).toBe(true);
      c.check?.(out);
      if (c.roundTrip === true) {
        const text = c.chunks.join('');
        const options = c.codec === nativeharness ? { framing: 'jsonl' } : {};
        expect(c.codec.stringify(out.events, options)).toBe(text);
      }
    });
  }
});

describe('hostile input: JSON layer, directly', () => {
  afterEach(() => vi.restoreAllMocks());

  test('a too-deep line never reaches JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const r = parseJsonLine(deepArrays(100_000), 7, 99, 64, 'hep');
    expect(parse).not.toHaveBeenCalled();
    expect(r.ok ? [] : at([r.diagnostic])).toEqual([['nesting_too_deep', 7, 99]]);
  });

  // A refused line's diagnostic is built from the error JSON.parse already threw (a second parse
  // cost a second exception, most of a bad line's cost): held equal to the checked parse.
  test('refusedJson and parseRecordText say what parseJsonLine says, from the first parse', () => {
    const garbage = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', ':', ',', 'x', '1', ' ') }),
      fc.tuple(fc.integer({ min: 1, max: 200 }), fc.string()).map(([n, tail]) => `${'['.repeat(n)}${tail}`),
      fc.json().map((j) => j.slice(0, -1)),
    );
    fc.assert(
      fc.property(garbage, fc.integer({ min: 1, max: 100 }), (text, maxDepth) => {
        let thrown: unknown;
        try {
          JSON.parse(text);
        } catch (error) {
          thrown = error;
        }
        // What parseRecordText does with text JSON.parse reads (short deep values are measured by
        // the decoders after it) is not the question here.
        fc.pre(thrown !== undefined);
        const checked = parseJsonLine(text, 3, 17, maxDepth, 'claude');
        expect(checked.ok).toBe(false);
        if (checked.ok) return;
        expect(refusedJson(text, thrown, 3, 17, maxDepth, 'claude')).toEqual(checked.diagnostic);
        const reported: unknown[] = [];
        const value = parseRecordText(text, 3, 17, maxDepth, 'claude', { report: (d) => reported.push(d) });
        expect(value).toBe(NOT_PARSED);
        expect(reported).toEqual([checked.diagnostic]);
      }),
      { numRuns: 3000 },
    );
  });

  test('the depth scan is iterative: 2 million brackets do not overflow the stack', () => {
    expect(exceedsDepth('['.repeat(2_000_000), 64)).toBe(true);
    expect(exceedsDepth(`"${'['.repeat(1_000_000)}"`, 64)).toBe(false);
  });

  test('maxDepth NaN or Infinity cannot switch the bound off: the default (64) applies', () => {
    // Fixed in src/json.ts: a non-finite maxDepth made every comparison false, so no depth check
    // ran at all (and highbar then overflowed the stack with a RangeError on deep args).
    for (const maxDepth of [Number.NaN, Number.POSITIVE_INFINITY, -1]) {
      const r = parseJsonLine(deepArrays(100_000), 1, 0, maxDepth, 'hep');
      expect(r.ok ? [] : at([r.diagnostic]), String(maxDepth)).toEqual([['nesting_too_deep', 1, 0]]);
      const hb = decode(highbar, [HB_TOOL(`{"a": ${deepArrays(100_000)}}`)], { maxDepth });
      expect(at(hb.diagnostics)).toEqual([['nesting_too_deep', 1, 0]]);
    }
  });

  // maxDepth is capped at MAX_DEPTH_CEILING (1000): recursive writers (highbar's Python-style
  // re-serialisation, JSON.stringify) stay far from the stack limit whatever the caller asks.
  test('highbar: a caller-raised maxDepth is capped, so no RangeError can escape', () => {
    // compact separators make the line "not Python-formatted", which triggers the re-serialisation
    const out = decode(highbar, [HB_TOOL(`{"a":${deepArrays(100_000)}}`)], {
      maxDepth: 1_000_000,
      maxLineBytes: 16 * 1024 * 1024,
    });
    expect(shape(out.events)).toEqual([]);
    expect(out.diagnostics.map((d) => d.code)).toEqual(['nesting_too_deep']);
    const within = decode(highbar, [HB_TOOL(`{"a":${deepArrays(900)}}`)], { maxDepth: 1_000_000 });
    // The trace ends without its turn: the run ends incomplete (round ten).
    expect(shape(within.events)).toEqual(['run.start@1', 'tool.start@1', 'tool.end@1', 'run.end@1']);
  });

  test('strict mode: warnings pass, the first error throws AgentwireError with its place', () => {
    expect(() => hep.parse(`${H}\n`, { strict: true })).not.toThrow();
    let thrown: unknown;
    try {
      decode(hep, [H, AGENT, `{"type":"x","a":${deepArrays(1000)}}\n`], { strict: true });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AgentwireError);
    expect(at([(thrown as AgentwireError).diagnostic])).toEqual([['nesting_too_deep', 3, 92]]);
  });

  test('byte-by-byte chunking gives the same events for a nesting/proto/surrogate mix', () => {
    const chunks = [
      H,
      `{"type":"x","a":${deepArrays(100)}}\n`,
      '{"type":"agent_start","turn_id":1,"__proto__":{"p":1}}\n',
      '{"type":"message_delta","turn_id":1,"delta":"\\ud800é"}\n',
    ];
    const whole = decode(hep, chunks);
    const bytewise = decode(hep, byteByByte(chunks));
    expect(bytewise.events).toEqual(whole.events);
    expect(bytewise.diagnostics).toEqual(whole.diagnostics);
  });

  test('1e400 decoded into a field no schema checks makes the writer refuse the event (not crash)', () => {
    const { events } = hep.parse(`${H}{"type":"x","n":1e400}\n`);
    expect(() => hep.stringify(events as AgentEvent[])).toThrow(AgentwireError);
  });
});
