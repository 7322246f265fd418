import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import {
  type IncompleteLinePolicy,
  type LineMode,
  LineSplitter,
  type LineSplitterOptions,
} from '../../src/framing/lines';
import { chunkAt } from '../golden';

interface Out {
  lines: Array<[string, number, number]>;
  diagnostics: Diagnostic[];
}

function run(
  chunks: Array<Uint8Array | string>,
  options: LineSplitterOptions = {},
  policy: IncompleteLinePolicy = 'deliver',
): Out {
  const out: Out = { lines: [], diagnostics: [] };
  const s = new LineSplitter(
    { line: (t, l, o) => out.lines.push([t, l, o]), diagnostic: (d) => out.diagnostics.push(d) },
    options,
  );
  for (const c of chunks) s.push(c);
  s.end(policy);
  return out;
}

const enc = (s: string) => new TextEncoder().encode(s);
const bytes = (...b: number[]) => new Uint8Array(b);

// The reference: split the whole input at once, by the mode's rules, on bytes.
function reference(input: Uint8Array, mode: LineMode, max: number): Out {
  const out: Out = { lines: [], diagnostics: [] };
  let start = input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf ? 3 : 0;
  let line = 1;
  const dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const emit = (s: number, e: number) => {
    if (e - s > max) out.diagnostics.push({ code: 'line_too_long' } as Diagnostic);
    else {
      try {
        out.lines.push([dec.decode(input.subarray(s, e)), line, s]);
      } catch {
        out.diagnostics.push({ code: 'invalid_utf8' } as Diagnostic);
      }
    }
    line++;
  };
  let i = start;
  while (i < input.length) {
    const b = input[i]!;
    if (b === 10) {
      const e = mode === 'jsonl' && i > start && input[i - 1] === 13 ? i - 1 : i;
      emit(start, e);
      start = i + 1;
    } else if (b === 13 && mode === 'sse') {
      emit(start, i);
      start = input[i + 1] === 10 ? i + 2 : i + 1;
      i = start - 1;
    }
    i++;
  }
  if (start < input.length) emit(start, input.length);
  return out;
}

describe('LineSplitter: JSONL mode', () => {
  test('splits on LF, numbers lines, gives byte offsets', () => {
    const out = run(['a\nbb\n', 'ccc\n']);
    expect(out.lines).toEqual([
      ['a', 1, 0],
      ['bb', 2, 2],
      ['ccc', 3, 5],
    ]);
  });

  test('CRLF is one terminator, also split across chunks; a lone CR is content', () => {
    expect(run(['a\r', '\nb\r\n']).lines).toEqual([
      ['a', 1, 0],
      ['b', 2, 3],
    ]);
    expect(run(['a\rb\n']).lines).toEqual([['a\rb', 1, 0]]);
  });

  test('byte offsets count UTF-8 bytes, not characters', () => {
    const out = run(['é\n€\n😀\nx\n']);
    expect(out.lines.map((l) => l[2])).toEqual([0, 3, 7, 12]);
  });

  test('a character split across chunks, byte by byte, decodes whole', () => {
    const b = enc('日本語 😀\n');
    const out = run(Array.from(b, (x) => bytes(x)));
    expect(out.lines).toEqual([['日本語 😀', 1, 0]]);
  });

  test('BOM at byte 0 is stripped (also split across chunks, after an empty chunk); elsewhere it is content', () => {
    expect(run([bytes(0xef, 0xbb, 0xbf), enc('a\n')]).lines).toEqual([['a', 1, 3]]);
    expect(run([new Uint8Array(0), bytes(0xef), bytes(0xbb), bytes(0xbf, 0x61, 0x0a)]).lines).toEqual([
      ['a', 1, 3],
    ]);
    expect(run(['\uFEFF\uFEFFa\n']).lines).toEqual([['\uFEFFa', 1, 3]]);
    expect(run(['a\n\uFEFFb\n']).lines).toEqual([
      ['a', 1, 0],
      ['\uFEFFb', 2, 2],
    ]);
  });

  test('a short input that only looks like a BOM prefix is content', () => {
    expect(run([bytes(0xef, 0xbb)]).diagnostics.map((d) => d.code)).toEqual(['invalid_utf8']);
    expect(run([bytes(0xef, 0x61, 0x0a)]).diagnostics.map((d) => d.code)).toEqual(['invalid_utf8']);
  });

  test('invalid UTF-8, overlong NUL and encoded surrogates are diagnostics; the stream goes on', () => {
    const out = run([bytes(0x61, 0x0a, 0xff, 0x0a, 0xc0, 0x80, 0x0a, 0xed, 0xa0, 0x80, 0x0a, 0x62, 0x0a)]);
    expect(out.lines).toEqual([
      ['a', 1, 0],
      ['b', 5, 11],
    ]);
    expect(out.diagnostics.map((d) => [d.code, d.line, d.offset])).toEqual([
      ['invalid_utf8', 2, 2],
      ['invalid_utf8', 3, 4],
      ['invalid_utf8', 4, 7],
    ]);
  });

  test('a real U+FFFD in valid text is not mistaken for invalid bytes', () => {
    expect(run(['\uFFFD\n']).lines).toEqual([['\uFFFD', 1, 0]]);
  });

  test('maxLineBytes: fires while the line arrives, discards the rest, reads the next line', () => {
    const diags: Diagnostic[] = [];
    const lines: string[] = [];
    const s = new LineSplitter(
      { line: (t) => lines.push(t), diagnostic: (d) => diags.push(d) },
      { maxLineBytes: 10 },
    );
    s.push('0123456');
    expect(diags).toEqual([]);
    s.push('89abcdef');
    expect(diags.map((d) => [d.code, d.line, d.offset])).toEqual([['line_too_long', 1, 0]]);
    expect(diags[0]!.message).toMatch(/> maxLineBytes \(10\)/);
    expect(s.pendingBytes).toBe(0);
    s.push('x'.repeat(1000));
    s.push('yy\nok\n');
    s.end();
    expect(lines).toEqual(['ok']);
    expect(diags).toHaveLength(1);
  });

  test('a line of exactly maxLineBytes passes, also with CRLF; one more byte does not', () => {
    expect(run(['0123456789\r\n'], { maxLineBytes: 10 }).lines).toEqual([['0123456789', 1, 0]]);
    expect(run(['0123456789\r', '\n'], { maxLineBytes: 10 }).lines).toEqual([['0123456789', 1, 0]]);
    expect(run(['01234567890\n', 'a\n'], { maxLineBytes: 10 }).lines).toEqual([['a', 2, 12]]);
  });

  test('end of input: deliver, report or hold the last line', () => {
    expect(run(['a\nb']).lines).toEqual([
      ['a', 1, 0],
      ['b', 2, 2],
    ]);
    const reported = run(['a\nb'], {}, 'report');
    expect(reported.lines).toEqual([['a', 1, 0]]);
    expect(reported.diagnostics.map((d) => [d.code, d.line, d.offset])).toEqual([['incomplete_line', 2, 2]]);
    const held = run(['a\nb'], {}, 'hold');
    expect(held.lines).toEqual([['a', 1, 0]]);
    expect(held.diagnostics).toEqual([]);
  });

  test('hold keeps the partial line for more input; reset forgets it', () => {
    const lines: Array<[string, number, number]> = [];
    const s = new LineSplitter({ line: (t, l, o) => lines.push([t, l, o]), diagnostic: () => {} });
    s.push('{"a":');
    s.end('hold');
    s.push('1}\n');
    expect(lines).toEqual([['{"a":1}', 1, 0]]);
    s.push('partial');
    s.reset();
    s.push('new\n');
    expect(lines.at(-1)).toEqual(['new', 1, 0]);
  });

  test('strings and bytes mix', () => {
    expect(run(['a', enc('b\n'), 'c\n']).lines).toEqual([
      ['ab', 1, 0],
      ['c', 2, 3],
    ]);
  });

  test('a 50 MB line costs bounded memory and the next line arrives', () => {
    const diags: Diagnostic[] = [];
    const lines: string[] = [];
    const s = new LineSplitter(
      { line: (t) => lines.push(t), diagnostic: (d) => diags.push(d) },
      { maxLineBytes: 1024 * 1024 },
    );
    const chunk = new Uint8Array(64 * 1024).fill(0x78);
    for (let i = 0; i < 800; i++) s.push(chunk);
    expect(s.pendingBytes).toBe(0);
    s.push('\n{"next":1}\n');
    s.end();
    expect(lines).toEqual(['{"next":1}']);
    expect(diags.map((d) => d.code)).toEqual(['line_too_long']);
  });
});

describe('LineSplitter: SSE mode', () => {
  test('CR, LF and CRLF each end a line; CR at a chunk end waits for the next byte', () => {
    const out = run(['a\rb\nc\r\nd\r', '\ne\r', 'f\n'], { mode: 'sse' });
    expect(out.lines.map((l) => l[0])).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(out.lines.map((l) => l[2])).toEqual([0, 2, 4, 7, 10, 12]);
  });

  test('blank lines are lines (they end SSE events)', () => {
    expect(run(['data: x\n\n'], { mode: 'sse' }).lines.map((l) => l[0])).toEqual(['data: x', '']);
    expect(run(['data: x\r\n\r\n'], { mode: 'sse' }).lines.map((l) => l[0])).toEqual(['data: x', '']);
  });

  test('maxLineBytes applies in SSE mode too', () => {
    const out = run(['x'.repeat(20), '\rok\r'], { mode: 'sse', maxLineBytes: 10 });
    expect(out.lines.map((l) => l[0])).toEqual(['ok']);
    expect(out.diagnostics.map((d) => d.code)).toEqual(['line_too_long']);
  });
});

describe('LineSplitter: against a reference split, at every chunking (property)', () => {
  const piece = fc.oneof(
    fc.constantFrom('\n', '\r', '\r\n', '\uFEFF', 'é', '😀', '日', 'a', '{"k":1}', ' '),
    fc.string({ maxLength: 12 }),
  );
  const input = fc
    .tuple(
      fc.boolean(),
      fc.array(piece, { maxLength: 40 }),
      fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }),
    )
    .map(([bom, parts, junk]) => {
      const text = enc((bom ? '\uFEFF' : '') + parts.join(''));
      if (junk.length === 0) return text;
      // sprinkle invalid bytes
      const b = Array.from(text);
      for (const j of junk) b.splice(Math.min(j * 7, b.length), 0, [0xff, 0xc0, 0x80, 0xed][j % 4]!);
      return new Uint8Array(b);
    });

  for (const mode of ['jsonl', 'sse'] as const) {
    test(`${mode}: lines, numbers, offsets and diagnostics do not depend on chunking`, () => {
      fc.assert(
        fc.property(
          input,
          fc.array(fc.nat(), { maxLength: 8 }),
          fc.integer({ min: 4, max: 64 }),
          (b, cuts, max) => {
            const expected = reference(b, mode, max);
            const got = run(chunkAt(b, cuts), { mode, maxLineBytes: max });
            expect(got.lines).toEqual(expected.lines);
            expect(got.diagnostics.map((d) => d.code)).toEqual(expected.diagnostics.map((d) => d.code));
            const bytewise = run(
              Array.from(b, (x) => bytes(x)),
              { mode, maxLineBytes: max },
            );
            expect(bytewise.lines).toEqual(expected.lines);
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});
