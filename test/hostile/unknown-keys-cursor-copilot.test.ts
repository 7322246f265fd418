import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';

// test/hostile/unknown-keys.test.ts, wider for Cursor and Copilot: a key no reader knows whose
// value is no number (`{"a":[1,"x"]}`), put at the start and at the end of every object of every
// line of their JSON Lines fixtures (every object, not the first eight; empty ones too), written
// back to the same format. The line comes back byte for byte, or a diagnostic says why. (Round
// thirty-two: the arguments a Cursor call's completion repeats, and a key of Copilot's
// `modelMetrics` that is no model, were dropped with nothing said.)

const FIXTURES = join(__dirname, '../../fixtures');
const FORMATS: readonly Format[] = ['cursor', 'copilot'];
const KEY = '"zz_extra":{"a":[1,"x"]}';

/** Where each object of a JSON line opens and closes (`{` and its `}`), strings skipped. */
function objectsOf(line: string): Array<[open: number, close: number]> {
  const found: Array<[number, number]> = [];
  const open: number[] = [];
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') open.push(i);
    else if (c === '}') found.push([open.pop()!, i]);
  }
  return found;
}

/** The line with the key put just inside the object `[open, close]`, at its start or its end. */
function withKey(line: string, [open, close]: [number, number], atEnd: boolean): string {
  const empty = close === open + 1;
  return atEnd
    ? `${line.slice(0, close)}${empty ? '' : ','}${KEY}${line.slice(close)}`
    : `${line.slice(0, open + 1)}${KEY}${empty ? '' : ','}${line.slice(open + 1)}`;
}

interface Case {
  where: string;
  line: number;
  input: string;
  /** How many diagnostics the fixture itself has. */
  said: number;
}

function cases(format: Format): Case[] {
  const dir = join(FIXTURES, format);
  const codec = codecFor(format)!;
  const all: Case[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    // Only fixtures that come back byte for byte as they are (the bad-input ones say why not).
    const read = codec.parse(text);
    if (codec.stringify(read.events) !== text) continue;
    const lines = text.split('\n');
    lines.forEach((l, i) => {
      for (const object of objectsOf(l))
        for (const atEnd of [false, true]) {
          const line = withKey(l, object, atEnd);
          all.push({
            where: `${file} line ${i + 1}, ${atEnd ? 'end' : 'start'} of the object at ${object[0]}`,
            line: i + 1,
            input: [...lines.slice(0, i), line, ...lines.slice(i + 1)].join('\n'),
            said: read.diagnostics.length,
          });
        }
    });
  }
  return all;
}

describe('a key no reader knows, at the start or end of any object of a line, comes back or is said', () => {
  test.each(FORMATS)('%s', (format) => {
    const codec = codecFor(format)!;
    const all = cases(format);
    expect(all.length).toBeGreaterThan(0);
    const dropped: string[] = [];
    for (const c of all) {
      const read = codec.parse(c.input);
      const out = codec.stringify(read.events);
      if (out !== c.input && read.diagnostics.length <= c.said)
        dropped.push(`${c.where}: ${c.input.split('\n')[c.line - 1]!.slice(0, 160)}`);
    }
    expect(dropped).toEqual([]);
  });
});
