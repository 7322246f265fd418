import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { hep } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { FUZZ_RUNS } from '../runs';

// The HEP decoder reads a `message_delta` spelled exactly as the reference writer spells it
// without building its record (most lines of a stream are these). Every other spelling, and the
// first line of a stream, takes the full path. These properties hold the two equal: a line read
// after a header decodes to the same events and diagnostics as the same line read first (where it
// never takes the shortcut), on canonical lines and on every near miss we can think of. Only what
// the position changes is set aside: the session a header stamps, the line number and offset, and
// the `order` error for a first line that is not a header.

const RUNS = FUZZ_RUNS * 10;
const HEADER = '{"type":"hep_header","hep":"v1","fah":"0.42.0","session":"s-1"}';

const deltaText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }), // astral characters and lone surrogates
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u2028', '{', '}', ',', 'a') }),
  fc.string({ minLength: 4000, maxLength: 4200 }), // either side of the depth pre-check bound
);

const turnSpelling = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom(
    '0',
    '00',
    '01',
    '-0',
    '-1',
    '1.0',
    '1e2',
    '1E2',
    ' 1',
    '1 ',
    '999999999999999',
    '9007199254740991',
    '9007199254740993',
    '99999999999999999999',
    '"1"',
    'null',
    'true',
    '',
  ),
);

const canonical = fc
  .tuple(turnSpelling, deltaText)
  .map(([turn, text]) => `{"type":"message_delta","turn_id":${turn},"delta":${JSON.stringify(text)}}`);

// A canonical line changed in one place: a key moved or added, another value for the delta,
// spacing, a cut, trailing bytes, an escape the reference writer would not write.
const nearMiss = fc.oneof(
  fc
    .tuple(fc.nat(), deltaText)
    .map(([t, d]) => `{"turn_id":${t},"type":"message_delta","delta":${JSON.stringify(d)}}`),
  fc
    .tuple(fc.nat(), deltaText)
    .map(([t, d]) => `{"type":"message_delta","delta":${JSON.stringify(d)},"turn_id":${t}}`),
  fc
    .tuple(fc.nat(), deltaText, fc.jsonValue())
    .map(
      ([t, d, x]) =>
        `{"type":"message_delta","turn_id":${t},"delta":${JSON.stringify(d)},"x":${JSON.stringify(x)}}`,
    ),
  fc
    .tuple(fc.nat(), fc.jsonValue())
    .map(([t, v]) => `{"type":"message_delta","turn_id":${t},"delta":${JSON.stringify(v) ?? 'null'}}`),
  fc
    .tuple(fc.nat(), fc.string())
    .map(([t, d]) => `{"type":"message_delta","turn_id":${t},"delta":${JSON.stringify(d)} }`),
  fc
    .tuple(fc.nat(), fc.string())
    .map(([t, d]) => `{"type":"message_delta","turn_id":${t},"delta":${JSON.stringify(d)}}}`),
  fc
    .tuple(fc.nat(), fc.string(), fc.string({ maxLength: 3 }))
    .map(([t, d, x]) => `{"type":"message_delta","turn_id":${t},"delta":${JSON.stringify(d)}${x}}`),
  fc.tuple(fc.nat(), fc.string()).map(([t, d]) => `{"type":"message_delta","turn_id":${t},"delta":"${d}"}`),
  fc
    .tuple(fc.nat(), fc.string(), fc.constantFrom(']', ' ', 'x', '"', ','))
    .map(([t, d, end]) => `{"type":"message_delta","turn_id":${t},"delta":${JSON.stringify(d)}${end}`),
  fc
    .tuple(fc.nat(), fc.string())
    .map(
      ([t, d]) => `{"type":"message_delta","turn_id":${t},"delta":"\\u0041\\/${JSON.stringify(d).slice(1)}}`,
    ),
  fc
    .tuple(fc.nat(), fc.string(), fc.string({ maxLength: 2 }))
    .map(
      ([t, d, x]) =>
        `{"type":"message_delta","turn_id":${t},"delta":"${JSON.stringify(d).slice(1, -1)}",${x}"}`,
    ),
  fc
    .tuple(fc.nat(), fc.string())
    .map(([t, d]) => `{"type":"message_start","turn_id":${t},"delta":${JSON.stringify(d)}}`),
  fc
    .tuple(fc.nat(), fc.string())
    .map(([t, d]) => `{"type":"message_delta" ,"turn_id":${t},"delta":${JSON.stringify(d)}}`),
);

const line = fc.oneof(
  canonical,
  nearMiss,
  fc
    .tuple(fc.oneof(canonical, nearMiss), fc.nat(), fc.nat())
    .map(([l, a, b]) => l.slice(0, a % (l.length + 1)) + l.slice((a % (l.length + 1)) + (b % 3))),
);

interface Decoded {
  events: unknown[];
  diagnostics: Array<Pick<Diagnostic, 'code' | 'severity'>>;
}

function decode(input: string, maxDepth?: number): Decoded {
  const diagnostics: Decoded['diagnostics'] = [];
  const decoder = hep.createDecoder({
    ...(maxDepth === undefined ? {} : { maxDepth }),
    onDiagnostic: (d) => {
      if (d.code !== 'order') diagnostics.push({ code: d.code, severity: d.severity });
    },
  });
  const events = [...decoder.push(input), ...decoder.end()]
    .filter((e) => e.type !== 'session.start')
    .map((e) => {
      const { session: _, provenance, ...rest } = e;
      return provenance === undefined ? rest : { ...rest, provenance: { ...provenance, line: 0, offset: 0 } };
    });
  return { events, diagnostics };
}

// After a header: where the shortcut applies.
function afterHeader(text: string, maxDepth?: number): Decoded {
  return decode(`${HEADER}\n${text}\n`, maxDepth);
}

// As the first line: always the full path.
function first(text: string, maxDepth?: number): Decoded {
  return decode(`${text}\n`, maxDepth);
}

describe('HEP decoder: the canonical message_delta shortcut', () => {
  test('decodes every line as the full path does', () => {
    fc.assert(
      // A depth bound of 0 or 1 refuses a long line before it is parsed: the shortcut must too.
      fc.property(line, fc.constantFrom(undefined, 0, 1, 2), (text, maxDepth) => {
        expect(afterHeader(text, maxDepth)).toEqual(first(text, maxDepth));
      }),
      { numRuns: RUNS },
    );
  });

  test('reads canonical lines, and refuses what the full path refuses', () => {
    const events = hep
      .createDecoder()
      .push(`${HEADER}\n{"type":"message_delta","turn_id":7,"delta":"a\\"b\\n"}\n`);
    expect(events[1]).toEqual({
      type: 'text.delta',
      text: 'a"b\n',
      round: 7,
      session: 's-1',
      provenance: { format: 'hep', line: 2, offset: HEADER.length + 1 },
    });
    expect(afterHeader('{"type":"message_delta","turn_id":01,"delta":"a"}').diagnostics).toEqual([
      { code: 'invalid_json', severity: 'error' },
    ]);
    expect(afterHeader('{"type":"message_delta","turn_id":1,"delta":"a","x":1}').events[0]).toMatchObject({
      provenance: { extra: { x: 1 } },
    });
    expect(afterHeader('{"type":"message_delta","turn_id":1,"delta":5}').diagnostics).toEqual([
      { code: 'invalid_record', severity: 'error' },
    ]);
  });

  test('a valid line with a field after the delta is not parsed twice (a throw costs ten lines)', () => {
    const decoder = hep.createDecoder();
    decoder.push(`${HEADER}\n`);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      decoder.push('{"type":"message_delta","turn_id":1,"delta":"say \\"hi\\"","note":"x"}\n');
      decoder.push('{"type":"message_delta","turn_id":1,"delta":"a\\\\","note":"x\\"y"}\n');
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
  });

  test('the first line still has to be the header', () => {
    const diagnostics: string[] = [];
    const decoder = hep.createDecoder({ onDiagnostic: (d) => diagnostics.push(d.code) });
    decoder.push('{"type":"message_delta","turn_id":1,"delta":"a"}\n');
    expect(diagnostics).toEqual(['order']);
  });
});
