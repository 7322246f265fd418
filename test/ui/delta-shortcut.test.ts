import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { agui, aisdk, type Codec, type Diagnostic } from '../../src/all';
import { AGUI_DECODER_SHORTCUTS } from '../../src/formats/ag-ui/decode';
import { AGUI_DELTA_HEAD } from '../../src/formats/ag-ui/wire';
import { AISDK_DECODER_SHORTCUTS } from '../../src/formats/ai-sdk/decode';
import { AISDK_DELTA_HEAD } from '../../src/formats/ai-sdk/wire';
import { readDeltaRecord } from '../../src/json';
import { FUZZ_RUNS } from '../runs';

// The UI decoders read a text delta spelled as the writers spell it without parsing it whole
// (readDeltaRecord). What it returns must be what JSON.parse returns (the same keys in the same
// order, the same values) for every line it accepts, and it must accept the writers' lines; with
// the switch off, both decoders must give the same events and diagnostics for any stream of such
// lines and their near misses, in every chunking.

const CASES = [
  {
    codec: agui as Codec,
    flag: AGUI_DECODER_SHORTCUTS,
    head: AGUI_DELTA_HEAD,
    type: 'TEXT_MESSAGE_CONTENT',
    id: 'messageId',
  },
  {
    codec: aisdk as Codec,
    flag: AISDK_DECODER_SHORTCUTS,
    head: AISDK_DELTA_HEAD,
    type: 'text-delta',
    id: 'id',
  },
];

const piece = fc.oneof(
  fc.string({ maxLength: 6, unit: 'binary' }),
  fc.constantFrom(
    '"',
    '\\',
    '\\"',
    '\\\\',
    '\\u0041',
    '\\ud800',
    '\\n',
    '\\x',
    '\n',
    '\t',
    '\u0000',
    '\u2028',
    '😀',
    '\ud800',
    '}',
    '{',
  ),
);
const raw = fc.array(piece, { maxLength: 5 }).map((xs) => xs.join(''));
const str = fc.oneof(
  fc.string({ maxLength: 8, unit: 'binary' }),
  raw.map((s) => s.replace(/"/g, '')),
);

/** A delta line as the writers spell it, then edited: text spliced in, cut, or spelled otherwise. */
function lines(head: string, type: string, idKey: string): fc.Arbitrary<string> {
  const canonical = fc
    .tuple(str, str)
    .map(
      ([id, delta]) => `{"type":"${type}","${idKey}":${JSON.stringify(id)},"delta":${JSON.stringify(delta)}}`,
    );
  const handmade = fc.tuple(raw, raw).map(([id, delta]) => `${head}${id}","delta":"${delta}"}`);
  const edited = fc
    .tuple(fc.oneof(canonical, handmade), fc.nat(), fc.nat(3), raw)
    .map(([line, at, cut, insert]) => {
      const i = at % (line.length + 1);
      return line.slice(0, i) + insert + line.slice(Math.min(line.length, i + cut));
    });
  const respelled = fc
    .tuple(str, str)
    .chain(([id, delta]) =>
      fc.constantFrom(
        `{"type":"${type}","${idKey}":${JSON.stringify(id)},"delta":${JSON.stringify(delta)},"x":1}`,
        `{"type":"${type}","${idKey}":${JSON.stringify(id)},"delta":${JSON.stringify(delta)},"timestamp":1}`,
        `{"type":"${type}", "${idKey}":${JSON.stringify(id)},"delta":${JSON.stringify(delta)}}`,
        `{"type":"${type}","delta":${JSON.stringify(delta)},"${idKey}":${JSON.stringify(id)}}`,
        `{"type":"${type}","${idKey}":${JSON.stringify(id)},"delta":${JSON.stringify(delta)}} `,
        `{"type":"${type}","${idKey}":${JSON.stringify(id)},"delta":5}`,
        `{"type":"${type}","${idKey}":"\\u0061${id.replace(/["\\\u0000-\u001f]/g, '')}","delta":${JSON.stringify(delta)}}`,
        `{"type":"${type}","${idKey}":${JSON.stringify(id)},"delta":${JSON.stringify(delta)},"delta":"again"}`,
        `{"type":"${type}","${idKey}":${JSON.stringify(id)},"delta":"${'x'.repeat(4100)}"}`,
      ),
    );
  return fc.oneof(canonical, handmade, edited, respelled);
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

describe.each(CASES)('$type', ({ codec, flag, head, type, id }) => {
  test('readDeltaRecord gives what JSON.parse gives, or nothing', () => {
    fc.assert(
      fc.property(lines(head, type, id), (line) => {
        const fast = readDeltaRecord(line, head, type, id);
        if (fast === undefined) return;
        const slow = parsed(line);
        expect(slow).toBeDefined();
        expect(Object.keys(fast)).toEqual(Object.keys(slow as object));
        expect(fast).toEqual(slow);
      }),
      { numRuns: FUZZ_RUNS * 20 },
    );
  });

  test('it reads the lines the writers write', () => {
    for (const [i, d] of ['plain', 'with "quotes" and \\ and\nlines', '\u0000\ud800😀', ''].entries()) {
      const line = JSON.stringify({ type, [id]: `m-${i}`, delta: d });
      expect(readDeltaRecord(line, head, type, id)).toEqual(JSON.parse(line));
    }
  });

  test('the decoder gives the same events and diagnostics with and without it, in every chunking', () => {
    const stream = fc.tuple(
      fc.array(lines(head, type, id), { minLength: 1, maxLength: 6 }),
      fc.boolean(),
      fc.nat(),
    );
    fc.assert(
      fc.property(stream, ([ls, sse, cut]) => {
        const body = ls.map((l) => l.replace(/[\r\n]/g, ' '));
        const wire = sse ? body.map((l) => `data: ${l}\n\n`).join('') : `${body.join('\n')}\n`;
        const bytes = new TextEncoder().encode(wire);
        const at = cut % (bytes.length + 1);
        const read = (on: boolean) => {
          const was = flag.enabled;
          flag.enabled = on;
          try {
            const diagnostics: Diagnostic[] = [];
            const d = codec.createDecoder({ onDiagnostic: (x: Diagnostic) => diagnostics.push(x) });
            const events = [...d.push(bytes.subarray(0, at)), ...d.push(bytes.subarray(at)), ...d.end()];
            return { events, diagnostics };
          } finally {
            flag.enabled = was;
          }
        };
        expect(read(true)).toEqual(read(false));
      }),
      { numRuns: FUZZ_RUNS * 2 },
    );
  });
});
