import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';
import { rawIfSame, sameJson } from '../../src/json';

// A number past a double's range (`1e400`, `-1e400`), which `JSON.parse` reads as ±Infinity, in a
// place of a line no schema reads (a field of the record's own, a tool's arguments) or in a
// field the decoder left out with a warning: written back to the same format, the writers that
// rebuild such a line from its kept record wrote the `null` `JSON.stringify` makes of Infinity,
// with nothing said (the Copilot writer refused a field of the record's own). Now the kept line
// is written as it came while its events are unchanged (rawIfSame takes that `null` for the
// number the line spells).

const FIXTURES = join(__dirname, '../../fixtures');

// format, fixture, what is changed, the text before which `"zz":1e400,` is put (its first match).
const PLACES: Array<[Format, string, string, RegExp]> = [
  ['ag-ui', 'tool-call.sse', 'a field of its own', /(?<=data: \{)"type":"STEP_STARTED"/],
  ['ag-ui', 'tool-call.sse', "a run's input", /(?<="input":\{)/],
  ['ai-sdk', 'chat.sse', 'a field of its own', /(?<=data: \{)"type":"start-step"/],
  ['ai-sdk', 'chat.sse', "a call's input", /(?<="input":\{)/],
  ['amp', 'error.jsonl', 'a field of its own', /(?<=^\{)"type":"user"/m],
  ['amp', 'error.jsonl', "a call's input", /(?<="input":\{)/],
  ['claude', 'tools.jsonl', 'a field of its own', /(?<=^\{)"type":"user"/m],
  ['copilot', 'subagent.jsonl', 'a field of its own', /(?<=^\{)"id"/m],
  ['copilot', 'subagent.jsonl', "a call's arguments", /(?<="arguments":\{)/],
  ['cursor', 'partial-output.jsonl', 'a field of its own', /(?<=^\{)"type":"user"/m],
  ['opencode', 'tool-then-text.jsonl', 'a field of its own', /(?<=^\{)"type":"tool_use"/m],
  ['opencode', 'tool-then-text.jsonl', "a call's input", /(?<="input":\{)/],
];

// format, fixture, the key whose first number is set, as test/hostile/non-finite-formats.test.ts
// does: the decoder warns that it left the field out, and the writer rebuilds the line from the
// kept record.
const LEFT_OUT: Array<[Format, string, string]> = [
  ['ag-ui', 'tool-call.sse', 'inputTokens'],
  ['ai-sdk', 'chat.sse', 'inputTokens'],
];

function roundTrip(format: Format, text: string): string {
  const codec = codecFor(format)!;
  return codec.stringify(codec.parse(text).events);
}

describe("a line with a number past a double's range is written back as it came", () => {
  test.each(PLACES)('%s: %s, in %s', (format, file, _what, before) => {
    const source = readFileSync(join(FIXTURES, format, file), 'utf8');
    const m = before.exec(source)!;
    for (const n of ['1e400', '-1e400']) {
      const text = `${source.slice(0, m.index)}"zz":${n},${source.slice(m.index)}`;
      expect(roundTrip(format, text)).toBe(text);
    }
  });

  test.each(LEFT_OUT)('%s: %s, a field left out (%s)', (format, file, key) => {
    const source = readFileSync(join(FIXTURES, format, file), 'utf8');
    const m = new RegExp(`"${key}"\\s*:\\s*(-?[\\d.]+)`).exec(source)!;
    const at = m.index + m[0].length - m[1]!.length;
    for (const n of ['1e400', '-1e400']) {
      const text = `${source.slice(0, at)}${n}${source.slice(at + m[1]!.length)}`;
      expect(
        codecFor(format)!
          .parse(text)
          .diagnostics.some((d) => /left out/.test(d.message)),
      ).toBe(true);
      expect(roundTrip(format, text)).toBe(text);
    }
  });
});

describe('rawIfSame', () => {
  test("takes the null JSON.stringify made of a kept number past a double's range for it", () => {
    const raw = '{"a":1e400,"b":[-1e400],"c":"x"}';
    expect(rawIfSame(raw, JSON.stringify(JSON.parse(raw)))).toBe(raw);
  });

  test('writes the text when it says anything else', () => {
    const raw = '{"a":1e400,"c":"x"}';
    expect(rawIfSame(raw, '{"a":null,"c":"y"}')).toBe('{"a":null,"c":"y"}');
    expect(rawIfSame(raw, '{"a":1,"c":"x"}')).toBe('{"a":1,"c":"x"}');
    expect(rawIfSame(raw, '{"c":"x"}')).toBe('{"c":"x"}');
    // A null of the line is no number: a null of the text says it, nothing else does.
    expect(rawIfSame('{"a":null}', '{"a":null}')).toBe('{"a":null}');
    expect(rawIfSame('{"a":null}', '{"a":0}')).toBe('{"a":0}');
  });

  test('sameJson is strict unless asked', () => {
    expect(sameJson({ a: Number.POSITIVE_INFINITY }, { a: null })).toBe(false);
    expect(sameJson({ a: Number.POSITIVE_INFINITY }, { a: null }, true)).toBe(true);
    expect(sameJson({ a: null }, { a: Number.POSITIVE_INFINITY }, true)).toBe(false);
    expect(sameJson({ a: 1 }, { a: null }, true)).toBe(false);
  });
});
