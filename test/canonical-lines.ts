import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { Diagnostic } from '../src/diagnostics';
import { valueExceedsDepth } from '../src/json';
import type { AgentEvent } from '../src/model';
import { FUZZ_RUNS } from './runs';
import { expectSamePaths, type WholeEventsCase } from './whole-events';

// What the canonical-line reader properties of the CLI agents share (test/<format>/
// canonical-lines.test.ts): the near misses of a line as its agent writes it, the equality a
// reader's record is held to against `JSON.parse` of the line, and the decoder-level properties
// with the reader on or off.

type Rec = Record<string, unknown>;

/** How a line is spelled: as written, or a near miss of that (`at` and `c` pick where and what). */
export interface Spelling {
  kind: string;
  at: number;
  c: string;
}

/** Mostly as written, else one of the near misses {@link spell} knows. */
export const spelling: fc.Arbitrary<Spelling> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'as written', at: 0, c: '' }), weight: 6 },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'u-escape',
        'keys reversed',
        'inner keys reversed',
        'extra key',
        'inner extra key',
        'space',
        'number .0',
        'number e0',
        'number leading zero',
        'number minus',
        'number 17 digits',
        'crlf',
        'trailing',
        'cut',
        'inserted',
        'removed',
        'replaced',
      ),
      at: fc.nat(),
      c: fc.constantFrom('"', '\\', '}', ']', '{', '[', ',', ':', 'x', '0', ' ', '\u0001', '\n', 'é'),
    }),
    weight: 5,
  },
);

/**
 * The line of `r` spelled `how`: `JSON.stringify` of it, or a near miss (keys moved at the top or
 * in the object under `inner`, an extra key, a space, `\u` escapes of `§` and `S`, the first
 * number after `number` spelled otherwise, CRLF, text after the end, cut short, a character inserted, removed or
 * replaced).
 */
export function spell(r: Rec, how: Spelling, inner: string, number: RegExp): string {
  const line = JSON.stringify(r);
  const i = how.at % (line.length + 1);
  const o = r[inner] as Rec;
  switch (how.kind) {
    case 'u-escape':
      return line.replaceAll('§', '\\u00a7').replaceAll('S', '\\u0053');
    case 'keys reversed':
      return JSON.stringify(Object.fromEntries(Object.entries(r).reverse()));
    case 'inner keys reversed':
      return JSON.stringify({ ...r, [inner]: Object.fromEntries(Object.entries(o).reverse()) });
    case 'extra key':
      return JSON.stringify({ ...r, extra: 1 });
    case 'inner extra key':
      return JSON.stringify({ ...r, [inner]: { ...o, model: 'm' } });
    case 'space':
      return `${line.slice(0, i)} ${line.slice(i)}`;
    case 'number .0':
      return line.replace(number, '$1$2.0');
    case 'number e0':
      return line.replace(number, '$1$2e0');
    case 'number leading zero':
      return line.replace(number, '$10$2');
    case 'number minus':
      return line.replace(number, '$1-$2');
    case 'number 17 digits':
      // A digit-by-digit sum rounds these digits otherwise than JSON.parse.
      return line.replace(number, '$171481791153682067');
    case 'crlf':
      return `${line}\r`;
    case 'trailing':
      // Still ending with a brace, as every canonical line does.
      return `${line}${how.c}}`;
    case 'cut':
      return line.slice(0, i);
    case 'inserted':
      return `${line.slice(0, i)}${how.c}${line.slice(i)}`;
    case 'removed':
      return `${line.slice(0, i)}${line.slice(i + 1)}`;
    case 'replaced':
      return `${line.slice(0, i)}${how.c}${line.slice(i + 1)}`;
    default:
      return line;
  }
}

/** `a` and `b` the same JSON value: the same keys in the same order, leaves `Object.is` equal. */
export function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k, i) => k === kb[i] && same((a as Rec)[k], (b as Rec)[k])) &&
    Object.getPrototypeOf(a) === Object.getPrototypeOf(b)
  );
}

/** `JSON.parse(text)`, or `undefined` when it is no JSON. */
export function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Mostly `usual` (what the agent writes), else `odd`. */
export function mostly<T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: odd, weight: 1 });
}

/** A depth bound: mostly the default, else one the lines' nested values reach. */
export const depth: fc.Arbitrary<number> = mostly(fc.constant(64), fc.integer({ min: 0, max: 9 }));

// The events (as JSON) and diagnostics of `input` decoded with the reader `c.whole` on or off.
function decodeWith(
  c: WholeEventsCase,
  input: string,
  maxDepth: number,
  canonical: boolean,
): { json: string; diagnostics: Diagnostic[] } {
  c.whole.enabled = canonical;
  try {
    const diagnostics: Diagnostic[] = [];
    const d = c.codec.createDecoder({ maxDepth, onDiagnostic: (x) => diagnostics.push(x) });
    const events: AgentEvent[] = [...d.push(Buffer.from(input)), ...d.end()];
    return { json: JSON.stringify(events), diagnostics };
  } finally {
    c.whole.enabled = true;
  }
}

/**
 * The line-level property of a canonical-line reader that keeps no state between lines (`read`),
 * as a test of the enclosing `describe`: a line it reads gives the record `JSON.parse` gives, the
 * same keys in the same order, within the depth bound.
 */
export function readerProperty(
  read: (text: string, maxDepth: number) => unknown,
  line: fc.Arbitrary<string>,
): void {
  test('reads, when it reads a line, the record JSON.parse gives, within the depth bound', () => {
    fc.assert(
      fc.property(line, depth, (text, maxDepth) => {
        const got = read(text, maxDepth);
        if (got === undefined) return;
        const want = parsed(text);
        expect(same(got, want)).toBe(true);
        expect(valueExceedsDepth(want, maxDepth)).toBe(false);
      }),
      { numRuns: FUZZ_RUNS * 25 },
    );
  });
}

/**
 * The decoder-level properties of a canonical-line reader (`c.whole` its switch), as tests of the
 * enclosing `describe`: lines of `line` after `opening` give the same events, diagnostics and
 * written bytes with the reader on or off in any chunking, and the same under a depth bound the
 * lines' values reach.
 */
export function decoderProperties(c: WholeEventsCase, line: fc.Arbitrary<string>, opening = ''): void {
  test('gives the same events, diagnostics and written bytes as JSON.parse, in any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, cuts) => {
          expectSamePaths(c, opening + lines.map((l) => `${l}\n`).join(''), cuts);
        },
      ),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('refuses the lines too deep for the bound as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), depth, (lines, maxDepth) => {
        const input = opening + lines.map((l) => `${l}\n`).join('');
        const on = decodeWith(c, input, maxDepth, true);
        const off = decodeWith(c, input, maxDepth, false);
        expect(on.json).toBe(off.json);
        expect(on.diagnostics).toEqual(off.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });
}
