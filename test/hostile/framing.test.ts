import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import type { NhDecodeOptions } from '../../src/formats/nativeharness/decode';
import { nativeharness } from '../../src/formats/nativeharness/index';
import { at, byteByByte, type Chunk, type DiagAt, decode, joinChunks, shape } from './helpers';

// nativeharness framings other than SSE: the JSON array of `/events` (a streaming scanner, not
// the line splitter) and framing detection. Each: exact bytes, one outcome.

const ENV = (seq: number, payload = '{"status":"x"}') =>
  `{"seq":${seq},"ts":1767225600137,"type":"progress","workspace_id":"w","session_id":"s","turn_id":"t","payload":${payload}}`;
const E1 = ENV(1); // 121 bytes

interface FramingCase {
  name: string;
  chunks: Chunk[];
  options?: NhDecodeOptions;
  shape: string[];
  diagnostics: DiagAt[];
}

const cases: FramingCase[] = [
  {
    name: 'JSON array: compact, strings holding ], }, [ and escaped quotes do not cut elements',
    chunks: [`[${ENV(1, '{"status":"]}[{\\"],"}')},${ENV(2)}]`],
    shape: ['status@1', 'status@1'],
    diagnostics: [],
  },
  {
    name: 'JSON array: pretty-printed with CRLF and a BOM; lines and byte offsets count both',
    chunks: [[0xef, 0xbb, 0xbf], `[\r\n  ${E1},\r\n  ${ENV(2)}\r\n]\r\n`],
    shape: ['status@2', 'status@3'],
    diagnostics: [],
  },
  {
    name: 'JSON array: a primitive element is invalid_json; the next element is read',
    chunks: [`[1,${ENV(2)}]`],
    shape: ['status@1'],
    diagnostics: [['invalid_json', 1, 1]],
  },
  {
    name: 'JSON array: an element over maxEventBytes is skipped with event_too_large; the next is read',
    chunks: [`[${ENV(1, `{"status":"${'x'.repeat(500)}"}`)},${ENV(2)}]`],
    options: { maxEventBytes: 300 },
    shape: ['status@1'],
    diagnostics: [['event_too_large', 1, 1]],
  },
  {
    name: 'JSON array: an element nested 100 000 deep is refused by depth; the next is read',
    chunks: [`[${ENV(1, `{"status":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)},${ENV(2)}]`],
    options: { maxEventBytes: 16 * 1024 * 1024 },
    shape: ['status@1'],
    diagnostics: [['nesting_too_deep', 1, 1]],
  },
  {
    name: 'JSON array: cut off inside an element: incomplete_line warning, earlier elements delivered',
    chunks: [`[${E1},${ENV(2).slice(0, 50)}`],
    shape: ['status@1'],
    diagnostics: [['incomplete_line', 1, 123]],
  },
  {
    name: 'JSON array: content after the closing bracket is invalid_json; the array was read',
    chunks: [`[${E1}] [${ENV(2)}]`],
    shape: ['status@1'],
    diagnostics: [['invalid_json', 1, 124]],
  },
  {
    name: 'JSON Lines framing: CRLF line ends and a BOM',
    chunks: [[0xef, 0xbb, 0xbf], `${E1}\r\n${ENV(2)}\r\n`],
    shape: ['status@1', 'status@2'],
    diagnostics: [],
  },
  {
    name: 'JSON Lines framing: a seq that does not increase is an order error; the event is kept',
    chunks: [`${ENV(2)}\n${ENV(1)}\n`],
    shape: ['status@1', 'status@2'],
    diagnostics: [['order', 2, 122]],
  },
];

describe('hostile input: nativeharness JSON array and JSON Lines framing', () => {
  for (const c of cases) {
    test(c.name, () => {
      const out = decode(nativeharness, c.chunks, c.options ?? {});
      expect({ shape: shape(out.events), diagnostics: at(out.diagnostics) }).toEqual({
        shape: c.shape,
        diagnostics: c.diagnostics,
      });
      const bytewise = decode(nativeharness, byteByByte(c.chunks), c.options ?? {});
      expect(bytewise.events).toEqual(out.events);
      expect(at(bytewise.diagnostics)).toEqual(at(out.diagnostics));
      expect(decode(nativeharness, [joinChunks(c.chunks)], c.options ?? {}).events).toEqual(out.events);
    });
  }

  // The array is scanned as bytes: the element holding the bad bytes is reported at its place.
  test('JSON array: invalid UTF-8 inside an element is reported at that element', () => {
    const bytes = joinChunks([
      `[${E1},`,
      `{"seq":2,"ts":1,"type":"progress","workspace_id":"`,
      [0xff],
      '"}]',
    ]);
    const diagnostics: Diagnostic[] = [];
    nativeharness.parse(bytes, { onDiagnostic: (d) => diagnostics.push(d) });
    expect(diagnostics[0]!.code).toBe('invalid_utf8');
    expect(at(diagnostics.slice(0, 1))).toEqual([['invalid_utf8', 1, 123]]);
  });

  // Offsets are input byte offsets, also after an invalid byte (never U+FFFD's three bytes).
  test('JSON array: offsets after an invalid byte are input byte offsets', () => {
    const diagnostics: Diagnostic[] = [];
    nativeharness.parse(Uint8Array.of(0x5b, 0x80, 0x5d, 0x78), { onDiagnostic: (d) => diagnostics.push(d) });
    expect(at(diagnostics)).toEqual([
      ['invalid_utf8', 1, 1],
      ['invalid_json', 1, 3],
    ]);
  });
});
