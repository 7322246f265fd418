import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';

// test/hostile/unknown-keys.test.ts's promise, asked of the Codex and Gemini writers in more
// places (round thirty-two): a key a later agent adds comes back byte for byte, or a diagnostic
// says why, also when it is the last key of its object, and when its value is no number (an
// object holding a list: a value the writer cannot take for a figure of its own).

const FIXTURES = join(__dirname, '../../fixtures');
const FORMATS: readonly Format[] = ['codex', 'gemini'];
const VALUES = ['1', '{"a":[1,"x"]}'] as const;

type Where = 'first' | 'last';

// The index of the `}` closing the object that opens at `text[at]`, or -1.
function objectEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

// `line` with `"zz_extra":value` put first or last into the object opening at `at`.
function withKey(line: string, at: number, where: Where, value: string): string {
  if (where === 'first') return `${line.slice(0, at + 1)}"zz_extra":${value},${line.slice(at + 1)}`;
  const end = objectEnd(line, at);
  return `${line.slice(0, end)},"zz_extra":${value}${line.slice(end)}`;
}

function dropped(format: Format, where: Where, value: string): string[] {
  const codec = codecFor(format)!;
  const dir = join(FIXTURES, format);
  const out: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    const read = codec.parse(text);
    // Only fixtures that come back byte for byte as they are (the bad-input ones say why not).
    if (codec.stringify(read.events) !== text) continue;
    const lines = text.split('\n');
    lines.forEach((l, i) => {
      // Every object of the line: `{"` opens one (no fixture has an empty object with a key after).
      for (let at = l.indexOf('{"'); at !== -1; at = l.indexOf('{"', at + 1)) {
        const input = [...lines.slice(0, i), withKey(l, at, where, value), ...lines.slice(i + 1)].join('\n');
        const again = codec.parse(input);
        if (codec.stringify(again.events) !== input && again.diagnostics.length <= read.diagnostics.length)
          out.push(`${file} line ${i + 1} at ${at}: ${input.split('\n')[i]!.slice(0, 160)}`);
      }
    });
  }
  return out;
}

describe('a key no reader knows, first or last in any object, of any value, comes back or is said', () => {
  test.each(
    FORMATS.flatMap((f) => (['first', 'last'] as const).flatMap((w) => VALUES.map((v) => [f, w, v]))),
  )('%s: %s, %s', (format, where, value) => {
    expect(dropped(format as Format, where as Where, value as string)).toEqual([]);
  });
});
