import { describe, expect, test } from 'vitest';
import { type IncompleteLinePolicy, type LineMode, LineSplitter } from '../../src/framing/lines';
import { byteByByte, type Chunk, type DiagAt, joinChunks, type SplitOutcome, split } from './helpers';

// The line splitter's hostile cases. Each: exact bytes, the chunking that matters, one outcome
// (lines as [text, line, offset] and diagnostics as [code, line, offset]). The splitter must not
// depend on chunking, so every case is also run as one chunk and byte by byte.

interface LineCase {
  name: string;
  chunks: Chunk[];
  mode?: LineMode;
  maxLineBytes?: number;
  policy?: IncompleteLinePolicy;
  lines: SplitOutcome['lines'];
  diagnostics?: DiagAt[];
}

const BOM = [0xef, 0xbb, 0xbf];

const cases: LineCase[] = [
  // line ends
  {
    name: 'JSONL: CR at the end of a chunk, LF at the start of the next: one CRLF terminator',
    chunks: ['{"a":1}\r', '\n{"b":2}\n'],
    lines: [
      ['{"a":1}', 1, 0],
      ['{"b":2}', 2, 9],
    ],
  },
  {
    name: 'SSE: CR at the end of a chunk, LF at the start of the next: one terminator, no blank line',
    chunks: ['data: a\r', '\ndata: b\r\n'],
    mode: 'sse',
    lines: [
      ['data: a', 1, 0],
      ['data: b', 2, 9],
    ],
  },
  {
    name: 'JSONL: a lone CR inside a line is content, not a line end',
    chunks: ['{"t":"a\rb"}\n'],
    lines: [['{"t":"a\rb"}', 1, 0]],
  },
  {
    name: 'JSONL: CRLF split across three chunks with an empty chunk between',
    chunks: ['x\r', '', '\ny\n'],
    lines: [
      ['x', 1, 0],
      ['y', 2, 3],
    ],
  },
  {
    name: 'SSE: mixed CR, LF and CRLF terminators, blank lines included',
    chunks: ['a\rb\nc\r\n\rd\n\r\n'],
    mode: 'sse',
    lines: [
      ['a', 1, 0],
      ['b', 2, 2],
      ['c', 3, 4],
      ['', 4, 7],
      ['d', 5, 8],
      ['', 6, 10],
    ],
  },
  {
    name: 'SSE: CR CR is two line ends (a blank line), not one',
    chunks: ['a\r\rb\n'],
    mode: 'sse',
    lines: [
      ['a', 1, 0],
      ['', 2, 2],
      ['b', 3, 3],
    ],
  },
  {
    name: 'SSE: a CR as the very last byte ends the line',
    chunks: ['a\r'],
    mode: 'sse',
    lines: [['a', 1, 0]],
  },
  {
    name: 'JSONL: a CR as the very last byte (no LF) is content of the delivered last line',
    chunks: ['a\r'],
    lines: [['a\r', 1, 0]],
  },
  {
    name: 'JSONL: LF CR LF: an empty line, then a line holding only a CR terminator',
    chunks: ['\n\r\n'],
    lines: [
      ['', 1, 0],
      ['', 2, 1],
    ],
  },
  // BOM
  {
    name: 'BOM at byte 0 is stripped; offsets still count its three bytes',
    chunks: [[...BOM, 0x61, 0x0a, 0x62, 0x0a]],
    lines: [
      ['a', 1, 3],
      ['b', 2, 5],
    ],
  },
  {
    name: 'BOM twice at the start: only the first is stripped, the second is content',
    chunks: [[...BOM, ...BOM, 0x61, 0x0a]],
    lines: [['\uFEFFa', 1, 3]],
  },
  {
    name: 'BOM in the middle of the stream is content',
    chunks: ['a\n\uFEFFb\n'],
    lines: [
      ['a', 1, 0],
      ['\uFEFFb', 2, 2],
    ],
  },
  {
    name: 'BOM after an empty first chunk is still the stream-start BOM',
    chunks: [[], BOM, 'a\n'],
    lines: [['a', 1, 3]],
  },
  {
    name: 'BOM split byte by byte across chunks is stripped',
    chunks: [[0xef], [0xbb], [0xbf], 'a\n'],
    lines: [['a', 1, 3]],
  },
  {
    name: 'a BOM alone is an empty stream',
    chunks: [BOM],
    lines: [],
  },
  {
    name: 'the first two bytes of a BOM and then the end: content, not valid UTF-8',
    chunks: [[0xef, 0xbb]],
    lines: [],
    diagnostics: [['invalid_utf8', 1, 0]],
  },
  {
    name: 'SSE: BOM at byte 0 is stripped, then CRLF lines',
    chunks: [[...BOM], 'data: x\r\n\r\n'],
    mode: 'sse',
    lines: [
      ['data: x', 1, 3],
      ['', 2, 12],
    ],
  },
  // UTF-8
  {
    name: 'a 4-byte character split across chunks byte by byte decodes whole',
    chunks: [[0x22], [0xf0], [0x9f], [0x98], [0x80], [0x22, 0x0a]],
    lines: [['"😀"', 1, 0]],
  },
  {
    name: 'a 3-byte character split 2+1 at a chunk boundary, next line offsets in bytes',
    chunks: [
      [0xe6, 0x97],
      [0xa5, 0x0a, 0x78, 0x0a],
    ],
    lines: [
      ['日', 1, 0],
      ['x', 2, 4],
    ],
  },
  {
    name: 'an invalid byte (0xFF) makes its line invalid_utf8; the next line is read',
    chunks: [[0x61, 0xff, 0x0a, 0x62, 0x0a]],
    lines: [['b', 2, 3]],
    diagnostics: [['invalid_utf8', 1, 0]],
  },
  {
    name: 'an overlong NUL (C0 80) is invalid_utf8, never read as a NUL',
    chunks: [[0x22, 0xc0, 0x80, 0x22, 0x0a, 0x6f, 0x6b, 0x0a]],
    lines: [['ok', 2, 5]],
    diagnostics: [['invalid_utf8', 1, 0]],
  },
  {
    name: 'an overlong slash (E0 80 AF) is invalid_utf8',
    chunks: [[0xe0, 0x80, 0xaf, 0x0a]],
    lines: [],
    diagnostics: [['invalid_utf8', 1, 0]],
  },
  {
    name: 'a surrogate encoded in UTF-8 (ED A0 80, U+D800) is invalid_utf8',
    chunks: [[0x61, 0x0a, 0xed, 0xa0, 0x80, 0x0a, 0x62, 0x0a]],
    lines: [
      ['a', 1, 0],
      ['b', 3, 6],
    ],
    diagnostics: [['invalid_utf8', 2, 2]],
  },
  {
    name: 'a surrogate pair encoded as two 3-byte sequences (CESU-8) is invalid_utf8',
    chunks: [[0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80, 0x0a]],
    lines: [],
    diagnostics: [['invalid_utf8', 1, 0]],
  },
  {
    name: 'a code point above U+10FFFF (F4 90 80 80) is invalid_utf8',
    chunks: [[0xf4, 0x90, 0x80, 0x80, 0x0a]],
    lines: [],
    diagnostics: [['invalid_utf8', 1, 0]],
  },
  {
    name: 'a multi-byte sequence cut off by the end of input is invalid_utf8',
    chunks: ['ok\n', [0xe6, 0x97]],
    lines: [['ok', 1, 0]],
    diagnostics: [['invalid_utf8', 2, 3]],
  },
  {
    name: 'SSE: an invalid byte in a field line is invalid_utf8, the next line is read',
    chunks: [[0x64, 0x3a, 0xfe, 0x0d, 0x64, 0x3a, 0x78, 0x0d]],
    mode: 'sse',
    lines: [['d:x', 2, 4]],
    diagnostics: [['invalid_utf8', 1, 0]],
  },
  {
    name: 'a real U+FFFD (EF BF BD) in the text is valid, not mistaken for a bad byte',
    chunks: [[0xef, 0xbf, 0xbd, 0x0a]],
    lines: [['\uFFFD', 1, 0]],
  },
  {
    name: 'a NUL byte is content',
    chunks: [[0x61, 0x00, 0x62, 0x0a]],
    lines: [['a\0b', 1, 0]],
  },
  // size
  {
    name: 'a line of exactly maxLineBytes passes, with its CRLF split across chunks',
    chunks: ['0123456789\r', '\n'],
    maxLineBytes: 10,
    lines: [['0123456789', 1, 0]],
  },
  {
    name: 'maxLineBytes + 1 bytes is line_too_long; the next line is read at its true offset',
    chunks: ['0123456789A\nok\n'],
    maxLineBytes: 10,
    lines: [['ok', 2, 12]],
    diagnostics: [['line_too_long', 1, 0]],
  },
  {
    name: 'an oversized line arriving over many chunks gives one diagnostic, not one per chunk',
    chunks: ['0123', '4567', '89AB', 'CDEF', '\nok\n'],
    maxLineBytes: 10,
    lines: [['ok', 2, 17]],
    diagnostics: [['line_too_long', 1, 0]],
  },
  {
    name: 'an oversized last line without terminator: one line_too_long at the end',
    chunks: ['ok\n', 'x'.repeat(50)],
    maxLineBytes: 10,
    lines: [['ok', 1, 0]],
    diagnostics: [['line_too_long', 2, 3]],
  },
  {
    name: 'SSE: an oversized line ended by a lone CR',
    chunks: ['data: 0123456789\rok\r'],
    mode: 'sse',
    maxLineBytes: 10,
    lines: [['ok', 2, 17]],
    diagnostics: [['line_too_long', 1, 0]],
  },
  {
    name: 'maxLineBytes 0: empty lines pass, any other line is too long',
    chunks: ['\na\n\n'],
    maxLineBytes: 0,
    lines: [
      ['', 1, 0],
      ['', 3, 3],
    ],
    diagnostics: [['line_too_long', 2, 1]],
  },
  {
    name: 'maxLineBytes NaN falls back to the default (1 MiB) instead of refusing everything',
    chunks: ['abc\n'],
    maxLineBytes: Number.NaN,
    lines: [['abc', 1, 0]],
  },
  // end of input
  {
    name: 'end with "report": a partial last line is incomplete_line, not a line',
    chunks: ['a\n{"part'],
    policy: 'report',
    lines: [['a', 1, 0]],
    diagnostics: [['incomplete_line', 2, 2]],
  },
  {
    name: 'end with "hold": a partial last line is neither delivered nor reported',
    chunks: ['a\n{"part'],
    policy: 'hold',
    lines: [['a', 1, 0]],
  },
  {
    name: 'empty chunks anywhere change nothing',
    chunks: ['', 'a', '', '\n', '', 'b\n', ''],
    lines: [
      ['a', 1, 0],
      ['b', 2, 2],
    ],
  },
];

describe('hostile input: line splitter', () => {
  for (const c of cases) {
    test(c.name, () => {
      const options: { mode?: LineMode; maxLineBytes?: number } = {};
      if (c.mode !== undefined) options.mode = c.mode;
      if (c.maxLineBytes !== undefined) options.maxLineBytes = c.maxLineBytes;
      const expected = { lines: c.lines, diagnostics: c.diagnostics ?? [] };
      for (const chunks of [c.chunks, [joinChunks(c.chunks)], byteByByte(c.chunks)]) {
        const got = split(chunks, options, c.policy);
        expect({ lines: got.lines, diagnostics: got.diagnostics }).toEqual(expected);
      }
    });
  }

  test('a held partial line is completed by the next push after end("hold")', () => {
    const got = split(['a\n{"x":'], {}, 'hold');
    got.splitter.push('1}\n');
    expect(got.lines).toEqual([
      ['a', 1, 0],
      ['{"x":1}', 2, 2],
    ]);
  });

  test('a 50 MB line with no newline: memory stays at maxLineBytes, one diagnostic, the next line arrives', () => {
    const lines: string[] = [];
    const codes: string[] = [];
    const max = 1024 * 1024;
    const splitter = new LineSplitter(
      { line: (t) => lines.push(t), diagnostic: (d) => codes.push(d.code) },
      { maxLineBytes: max },
    );
    const chunk = new Uint8Array(256 * 1024).fill(0x7b);
    let highest = 0;
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 200; i++) {
      splitter.push(chunk);
      highest = Math.max(highest, splitter.pendingBytes);
    }
    expect(splitter.bytesConsumed).toBe(50 * 1024 * 1024);
    expect(highest).toBeLessThanOrEqual(max);
    expect(splitter.pendingBytes).toBe(0);
    expect(codes).toEqual(['line_too_long']);
    // Generous: the splitter holds at most maxLineBytes + 1; nothing near 50 MB may stay alive.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 * 1024 * 1024);
    splitter.push('\n{"next":1}\n');
    splitter.end();
    expect(lines).toEqual(['{"next":1}']);
  });
});
